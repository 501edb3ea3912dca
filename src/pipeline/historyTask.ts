// The conversation key's task in the CPU pool (src/shared/cpuPool.ts): a long
// history's hash-chain keys, by the same code as inline (conversationPrefix.ts).

export { historyKeys } from './conversationPrefix.ts';
