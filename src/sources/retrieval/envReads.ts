// How code reads an environment variable, in any language, as one shape
// instead of a list of spellings: an accessor of the environment (`ENV`,
// `env`, `environ`, `environment`, `getenv`, `get_env`, `getEnv`, `lookupEnv`,
// `fetch_env`, `fromEnvironment`, …), at most two member or call steps, then
// an upper-case variable name. That covers `os.environ.get("X")`,
// `process.env.X`, `env::var("X")`, `$ENV{X}` (Perl), `get(ENV, "X", …)`
// (Julia), `Sys.getenv("X")` (R), `Sys.getenv_opt "X"` (OCaml),
// `System.fetch_env!("X")`, `getEnvVarOwned(alloc, "X")`,
// `Environment.GetEnvironmentVariable("X")` and the spellings of languages
// nobody listed, as long as the accessor says "env". A line setting one
// (`os.environ["X"] = v`) names a variable the project uses: it counts.
//
// The same source is a POSIX extended regular expression (git grep -E) and a
// JavaScript one: no `\b`, `\w` or lookaround. Its repetitions are bounded
// and each is followed by a character class disjoint from it, so a line is
// matched in time linear in its length.

/** A character that separates the steps of a read (not a letter, digit or underscore). */
const SEP = '[^A-Za-z0-9_]';

/**
 * A step between the accessor and the name (`.get`, `::var`, `().get`, `(allocator, `): its separator holds a
 * punctuation mark, so that prose ("environment variable, like X") is no chain of steps.
 */
const STEP = '[ \t]{0,2}[^A-Za-z0-9_ \t]{1,3}[ \t]{0,2}[A-Za-z][A-Za-z_]{0,30}';

/**
 * The accessor: a word naming the environment (`ENV`, `env`, `environ`, `getenv`, `get_env`, `getenv_opt`,
 * `lookupEnv`) after a character that is no part of a word or of a kebab-case name (`rerun-if-env-changed` has
 * none), or the camelCase part of one (`getEnv`, `fromEnvironment`). An upper-case `ENV` stands alone:
 * `ENVIRONMENT VARIABLES` is a heading.
 */
const ACCESSOR =
  '((^|[^A-Za-z0-9-])(ENV|[Ee]nv|environ|[Ee]nvironment|[Gg]et_?env[a-z_]*|[Gg]et_?[Ee]nv[A-Za-z_]*|[Ll]ookup_?[Ee]nv|fetch_env)|[a-z](Env|Environment)[A-Za-z_]*)';

/** The variable: a whole upper-case name of three characters or more (`HOME`, `NO_COLOR`; not `WSGIEnvironment`). */
const VARIABLE = '[A-Z][A-Z0-9_]{2,}([^A-Za-z0-9_]|$)';

/** The read's shape, for git grep -E and for JavaScript alike. */
export const ENV_READ_SOURCE = `${ACCESSOR}(${STEP}){0,2}${SEP}{1,4}${VARIABLE}`;

const ENV_READ = new RegExp(ENV_READ_SOURCE);

/** Reading a line longer than this is data or minified code: only its head is tested. */
const MAX_TESTED = 400;

/** Whether a line reads (or sets: the variable is the project's either way) an environment variable. */
export const readsEnvironment = (line: string) => ENV_READ.test(line.slice(0, MAX_TESTED));
