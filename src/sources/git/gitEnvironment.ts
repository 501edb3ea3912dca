// The environment every git child runs with. The parent's `GIT_*` variables
// are dropped: one left by a hook or an editor that started ctxproxy
// (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_CONFIG_PARAMETERS`,
// `GIT_EXTERNAL_DIFF`, `GIT_ALTERNATE_OBJECT_DIRECTORIES` …) would point git
// at another repository or hand it commands, past every check of
// gitSafety.ts. Then what git may do is set here, below the `-c` overrides:
//   GIT_ALLOW_PROTOCOL=''   no transport at all, whatever `protocol.<name>.allow`
//                           a repository sets: a lazy fetch of a partial clone
//                           (an `ext::` command, a `file://` remote with its own
//                           `uploadpack`) fails before anything starts
//   GIT_NO_LAZY_FETCH=1     the same said plainly, for git >= 2.44 (older git
//                           ignores it; the empty protocol list already covers it)
//   GIT_CONFIG_NOSYSTEM=1   no system config; the user's global config is kept
//                           (it is the user's own: safe.directory and excludes
//                           live there), and GIT_CONFIG_GLOBAL is not inherited,
//                           so git reads it from the user's home as usual
//   GIT_TERMINAL_PROMPT=0   never ask for a password
//   GIT_OPTIONAL_LOCKS=0    read-only calls never write the index
//   GIT_PROTOCOL_FROM_USER=0  `protocol.allow=user` never counts us as a user

/** Variables set on every git child, whatever the parent had. */
export const GIT_CHILD_VARIABLES: Readonly<Record<string, string>> = {
  GIT_ALLOW_PROTOCOL: '',
  GIT_NO_LAZY_FETCH: '1',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_PROTOCOL_FROM_USER: '0',
};

/** The parent's environment without its `GIT_*` variables, plus GIT_CHILD_VARIABLES. */
export function gitChildEnvironment(parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    // Windows spells variables in any case; git reads them case-insensitively there.
    if (!name.toUpperCase().startsWith('GIT_')) env[name] = value;
  }
  return { ...env, ...GIT_CHILD_VARIABLES };
}
