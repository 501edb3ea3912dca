// The Deno entry (`deno task start`): Deno compiles TypeScript itself, so this
// skips bin/ctxproxy.js's tsx registration and runs the same main(). Deno's
// `process.argv` has Node's layout (runtime, script, then the arguments).
import { main } from '../src/main.ts';

const argv = process.argv.slice(2);
// `deno task start -- --port 0` passes its `--` on (npm drops it); `serve` takes no
// positional arguments, so a `--` right after it can only be that separator.
if (argv[0] === 'serve' && argv[1] === '--') argv.splice(1, 1);
const code = await main(argv);
// Exit explicitly: Deno keeps the process alive for an fs.watch watcher even when it
// was made with `persistent: false` (Node does not), so returning would hang here.
process.exit(code);
