// The question's task in the CPU pool (src/shared/cpuPool.ts): a long user
// turn's analysis, by the same code as inline (collect.ts, questionOffLoop).

export { analyseQuestion } from '../shared/question.ts';
