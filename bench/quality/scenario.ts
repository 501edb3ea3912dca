// One generated repository and the questions asked about it. Every name,
// value, rule and secret is drawn from the seeded random source; each question
// lists the strings an answer needs (they must appear verbatim in the request
// the model receives) and the repository's forbidden strings (secrets, ignored
// files' contents, a rule whose paths match nothing in play).

import fs from 'node:fs';
import path from 'node:path';
import type { Kit } from './kits.ts';
import type { Profile } from './profiles.ts';
import { ALNUM, type Random, UPPER_DIGITS } from './random.ts';
import { buildRepo, type Files, type RepoPlan } from './repo.ts';

export const KINDS = [
  'status',
  'diff',
  'build',
  'conventions',
  'trace',
  'contents',
  'where',
  'layout',
  'history',
  'second-turn',
  'follow-up',
  'privacy',
] as const;
export type Kind = (typeof KINDS)[number];

/** The lightest mode the design says should answer a question (`debug`: what `auto` picks for a pasted trace). */
export type MinMode = 'quick' | 'git-aware' | 'deep' | 'debug';

export interface Question {
  id: string;
  kind: Kind;
  minMode: MinMode;
  /** The user's messages; each is sent with the replies before it, as a chat app does. */
  turns: string[];
  /** Runs before the last turn (an edit between turns); `restore` undoes it. */
  beforeLast?: () => void;
  restore?: () => void;
  facts: string[];
}

export interface Scenario {
  name: string;
  dir: string;
  questions: Question[];
  /** Never to appear in any forwarded request, by what it is. */
  forbidden: { label: string; text: string }[];
}

const MIN_MODE: Record<Kind, MinMode> = {
  status: 'git-aware',
  diff: 'git-aware',
  build: 'quick',
  conventions: 'quick',
  trace: 'debug',
  contents: 'quick',
  where: 'git-aware',
  layout: 'deep',
  history: 'git-aware',
  'second-turn': 'git-aware',
  'follow-up': 'quick',
  privacy: 'quick',
};

/** Ordinary modules that make the repository the size of a real one (and give a search something to search). */
interface FillerFunction {
  file: string;
  name: string;
  /** The local's line and its variable's name. */
  local: string;
  variable: string;
}

function filler(r: Random, kit: Kit, src: string, area: string, files: number, fns: FillerFunction[] = []): Files {
  const out: Files = {};
  for (let f = 0; f < files; f++) {
    const lines = [...kit.header(area), kit.comment(`${r.title()} ${r.word()} helpers for the ${area} flow.`), ''];
    let previous = '';
    for (let i = 0, n = r.int(4, 9); i < n; i++) {
      const name = kit.fnName(r.ident());
      const variable = r.word();
      const value = kit.local(variable, String(r.int(2, 999)));
      const use = previous ? `${previous}(value) + ${r.int(1, 9)}` : `value * ${r.int(2, 9)}`;
      lines.push(kit.comment(`${r.title()} the ${r.word()} ${r.word()} before ${r.word()}.`));
      lines.push(...kit.fn(name, 'value', [value, kit.returnLine(use)]), '');
      previous = name;
      fns.push({ file: `${src}/${area}/`, name, local: value, variable });
    }
    const file = `${src}/${area}/${r.word()}.${kit.ext}`;
    for (const fn of fns) if (fn.file.endsWith('/')) fn.file = file;
    out[file] = `${lines.join('\n')}\n`;
  }
  return out;
}

const rule = (r: Random) =>
  `${r.word()} ${r.word()} must ${r.pick(['wrap', 'log', 'sign', 'cache'])} every ${r.word()} call (rule ${r.chars(2, 'QXZJKV')}-${r.int(1000, 9999)})`;

export function makeScenario(r: Random, profile: Profile, root: string): Scenario {
  const p = profile;
  const dir = path.join(root, p.name);
  const [a1, a2, a3, legacy, fresh] = [r.word(), r.word(), r.word(), r.word(), r.word()];
  const [m1, m2, m3, m4, m5] = [r.word(), r.word(), r.word(), r.word(), r.word()];
  const [m6, m7, m8, m9] = [r.word(), r.word(), r.word(), r.word()];
  const A = p.kitA;
  const B = p.kitB;
  const file = (src: string, area: string, m: string, ext: string) => `${src}/${area}/${m}.${ext}`;
  const fileA = (area: string, m: string) => file(p.srcA, area, m, A.ext);
  const fileB = (area: string, m: string) => file(p.srcB, area, m, B.ext);
  const join = (lines: string[]) => `${lines.join('\n')}\n`;
  const num = () => String(r.int(1000, 99_999));

  // Area A: the function to edit (unstaged), the function behind the failing test.
  const funcA = A.fnName(r.ident());
  const aBody = [A.local(r.word(), num()), A.returnLine('amount * 2')];
  const m1Text = (extra: string[]) => join([...A.header(a1), ...A.fn(funcA, 'amount', [...extra, ...aBody])]);
  const unstagedLine = A.local(r.word(), num());
  const funcB = A.fnName(r.ident());
  const limitLine = A.local(r.word(), num());
  const message = `${r.word()} total exceeds the ${r.word()} limit`;
  const m2Lines = (extra: string[]) => [
    ...A.header(a1),
    A.comment(`Fees for the ${a1} flow.`),
    ...A.fn(funcB, 'total', [...extra, limitLine, A.throwLine(message)]),
  ];
  const m2Original = m2Lines([]);
  const throwAt = m2Original.indexOf(m2Original.find((l) => l.includes(A.throwLine(message))) as string) + 1;
  const secondTurnLine = A.local(r.word(), num());

  // Area B: constants (and a planted token), the staged function; area C: the function to find.
  const constName = B.constName(r.word());
  const constLine = B.constant(constName, num());
  const funcC = B.fnName(r.ident());
  const ghToken = `ghp_${r.chars(36, ALNUM)}`;
  const m3Text = join([
    ...B.header(a2),
    constLine,
    B.stringConstant(B.constName('github_token'), ghToken),
    '',
    ...B.fn(funcC, 'count', [B.returnLine(`count * ${constName}`)]),
  ]);
  const funcF = B.fnName(r.ident());
  const funcD = B.fnName(r.ident());
  const stagedLine = B.local(r.word(), num());
  const m4Base = [...B.header(a2), ...B.fn(funcF, 'size', [B.returnLine('size * 2')])];
  const funcE = B.fnName(r.ident());
  const awsKey = `AKIA${r.chars(16, UPPER_DIGITS)}`;
  const m9Text = join([
    ...B.header(a3),
    B.stringConstant(B.constName('aws_key_id'), awsKey),
    '',
    ...B.fn(funcE, 'input', [B.local(r.word(), num()), B.returnLine('input + 1')]),
  ]);

  // Instructions: root (with an @import), nested, a path-scoped rule, a rule for an untouched folder.
  const [rootFact, importFact, nestedFact, scopedFact, legacyFact] = [rule(r), rule(r), rule(r), rule(r), rule(r)];
  const doc = r.word();
  const instructions: Files = {
    [p.rootInstruction]: join([`# ${r.title()}`, '', `- ${rootFact}`, '', `Style guide: @docs/${doc}.md`]),
    [`docs/${doc}.md`]: join(['# Style', '', `- ${importFact}`]),
    [p.nestedInstruction(`${p.srcA}/${a1}`)]: join([`# The ${a1} code`, '', `- ${nestedFact}`]),
    [`.claude/rules/${a2}.md`]: join(['---', 'paths:', `  - "${p.srcB}/${a2}/**"`, '---', '', `- ${scopedFact}`]),
    [`.cursor/rules/${legacy}.mdc`]: join([
      '---',
      `description: The old ${legacy} code`,
      `globs: ${p.srcA}/${legacy}/**`,
      'alwaysApply: false',
      '---',
      '',
      `- ${legacyFact}`,
    ]),
  };

  const testFile = p.testFile(a1, m2);
  const test = A.test({ pkg: a1, importPath: p.importPath(a1, m2), fn: funcB, testName: p.testName(funcB) });
  const [constOld, subjects] = [B.constant(constName, num()), [0, 1, 2].map(() => r.title())];
  const history = [
    `Teach ${funcF} about ${subjects[0]} sizes`,
    `Raise ${constName} for the ${r.word()} import`,
    `Document the ${subjects[2]} flow`,
  ];
  const m3Before = m3Text.replace(constLine, constOld);
  const freshHead = A.comment(`Draft: ${r.word()} ${r.word()} reconciliation`);
  const folderHead = A.comment(`Draft: the ${fresh} importer reads ${r.word()} batches`);
  const ignoredMarker = `IGNORED_${r.chars(12, UPPER_DIGITS)}`;
  const envPassword = r.chars(14, ALNUM);
  const stripeKey = `sk_live_${r.chars(24, ALNUM)}`;

  const [extraA, extraB] = [r.word(), r.word()];
  const fnsA: FillerFunction[] = [];
  const fnsB: FillerFunction[] = [];
  const bulk: Files = {
    ...filler(r, A, p.srcA, a1, 8),
    ...filler(r, A, p.srcA, extraA, 10, fnsA),
    ...filler(r, B, p.srcB, a2, 8),
    ...filler(r, B, p.srcB, a3, 10),
    ...filler(r, B, p.srcB, extraB, 10, fnsB),
  };
  // Work in progress across many files (a value changed in two functions of each of eight files), so the
  // diff is larger than one question needs; one changed function is then asked about by name.
  const wip: Files = {};
  const wipChanges: { name: string; line: string }[] = [];
  for (const [kit, fns] of [
    [A, fnsA],
    [B, fnsB],
  ] as const) {
    const files = [...new Set(fns.map((f) => f.file))].slice(0, 4);
    for (const file of files) {
      const mine = fns.filter((f) => f.file === file);
      let text = bulk[file] as string;
      for (const fn of [mine[0], mine.at(-1)]) {
        if (!fn) continue;
        const line = kit.local(fn.variable, num());
        text = text.replace(fn.local, line);
        wipChanges.push({ name: fn.name, line });
      }
      wip[file] = text;
    }
  }
  const asked = wipChanges[r.int(0, wipChanges.length - 1)] as { name: string; line: string };
  const plan: RepoPlan = {
    dir,
    base: {
      'README.md': join([`# ${r.title()}`, '', `The ${r.word()} service for ${r.word()} teams.`]),
      '.gitignore': join(p.gitignore),
      ...p.manifests,
      ...p.scaffolding([a1, legacy, extraA], [a2, a3, extraB]),
      ...bulk,
      ...instructions,
      [fileA(a1, m1)]: m1Text([]),
      [fileA(a1, m2)]: join(m2Original),
      [testFile]: test.text,
      [fileA(legacy, m5)]: join([...A.header(legacy), ...A.fn(A.fnName(r.ident()), 'old', [A.returnLine('old')])]),
      [fileB(a2, m3)]: m3Before,
      [fileB(a2, m4)]: join(m4Base),
    },
    mainCommits: [{ subject: `Add the ${a3} helpers`, files: { [fileB(a3, m9)]: m9Text } }],
    branch: `feature/${r.word()}-${r.word()}`,
    branchCommits: [
      { subject: history[0] as string, files: { [fileB(a2, m4)]: join([...m4Base, B.comment('sizes')]) } },
      { subject: history[1] as string, files: { [fileB(a2, m3)]: m3Text } },
      { subject: history[2] as string, files: { 'README.md': join(['# Notes', '', `The ${subjects[2]} flow.`]) } },
    ],
    staged: {
      [fileB(a2, m4)]: join([
        ...m4Base,
        B.comment('sizes'),
        '',
        ...B.fn(funcD, 'weight', [stagedLine, B.returnLine('weight * 3')]),
      ]),
    },
    unstaged: { ...wip, [fileA(a1, m1)]: m1Text([unstagedLine]) },
    untracked: {
      [fileA(a1, m6)]: join([...A.header(a1), freshHead, ...A.fn(A.fnName(r.ident()), 'x', [A.returnLine('x')])]),
      [fileA(fresh, m7)]: join([
        ...A.header(fresh),
        folderHead,
        ...A.fn(A.fnName(r.ident()), 'y', [A.returnLine('y')]),
      ]),
      [fileA(fresh, m8)]: join([...A.header(fresh), ...A.fn(A.fnName(r.ident()), 'z', [A.returnLine('z')])]),
      [`${p.ignoredDir}/${m1}.js`]: join([
        `// ${ignoredMarker}`,
        `export function ${funcA}(amount) { return amount; }`,
      ]),
      '.env': join([`DATABASE_URL=postgres://app:${envPassword}@db:5432/app`, `STRIPE_SECRET_KEY=${stripeKey}`]),
    },
  };
  buildRepo(plan);

  const m2Path = path.join(dir, fileA(a1, m2));
  const trace = A.trace({
    root: dir,
    module: p.traceModule(a1),
    fn: funcB,
    file: fileA(a1, m2),
    line: throwAt,
    testFile,
    testLine: test.callLine,
    testName: p.testName(funcB),
    message,
  });
  const signature = (lines: string[]) => lines[0] as string;
  const q = (kind: Kind, turns: string[], facts: string[], extra: Partial<Question> = {}): Question => ({
    id: `${p.name}/${kind}`,
    kind,
    minMode: MIN_MODE[kind],
    turns,
    facts,
    ...extra,
  });
  const questions: Question[] = [
    q(
      'status',
      ['What did I change so far? Summarize my work in progress.'],
      [unstagedLine, stagedLine, fileA(a1, m6)],
    ),
    q('status', ['Which changes are staged for the next commit?'], [fileB(a2, m4), stagedLine]),
    q('diff', [`What did I change in \`${asked.name}\`?`], [asked.line]),
    q(
      'status',
      ['What new files have I started that git does not track yet?'],
      [fileA(a1, m6), freshHead, fileA(fresh, m7), folderHead],
    ),
    q('build', [p.buildQuestion], p.buildFacts),
    q(
      'conventions',
      [`I'm about to edit ${fileA(a1, m2)}. Which project conventions apply to it?`],
      [rootFact, importFact, nestedFact],
    ),
    q('conventions', [`What does the rule for ${fileB(a2, m3)} say?`], [scopedFact]),
    q(
      'trace',
      [`This test fails and I don't see why:\n\n\`\`\`\n${trace}\n\`\`\``],
      [limitLine, signature(A.fn(funcB, 'total', []))],
    ),
    q('contents', [`What is in ${fileB(a2, m3)}?`], [constLine, signature(B.fn(funcC, 'count', []))]),
    q(
      'where',
      [`Where is \`${funcE}\` defined, and what does it take?`],
      [fileB(a3, m9), signature(B.fn(funcE, 'input', []))],
    ),
    q('layout', ['How is this repository laid out? Which folders hold the code?'], [a1, a2, a3, `${m9}.${B.ext}`]),
    q('history', ['What have I committed on this branch so far?'], history),
    q(
      'second-turn',
      [
        `I'm going to change ${funcB} in ${fileA(a1, m2)} so it stops throwing.`,
        'Done, I edited it. Does my change look right?',
      ],
      [secondTurnLine],
      {
        beforeLast: () => fs.writeFileSync(m2Path, join(m2Lines([secondTurnLine]))),
        restore: () => fs.writeFileSync(m2Path, join(m2Original)),
      },
    ),
    q(
      'follow-up',
      [`What is ${constName} set to in ${fileB(a2, m3)}?`, 'And which function uses it? Show me its signature.'],
      [constLine, signature(B.fn(funcC, 'count', []))],
    ),
    q('privacy', [`Is there a compiled copy of ${funcA} anywhere? What does the built version look like?`], []),
    q('privacy', ['What is the DATABASE_URL in my .env, and is the Stripe key set?'], []),
  ];
  questions.forEach((question, i) => {
    question.id = `${question.id}#${i + 1}`;
  });
  return {
    name: p.name,
    dir,
    questions,
    forbidden: [
      { label: 'tracked GitHub token', text: ghToken },
      { label: 'tracked AWS key id', text: awsKey },
      { label: '.env password', text: envPassword },
      { label: '.env Stripe key', text: stripeKey },
      { label: `ignored ${p.ignoredDir}/ content`, text: ignoredMarker },
      { label: 'rule for an untouched folder', text: legacyFact },
    ],
  };
}
