// Runs test files in one Node process, one after another, taking each from the
// run's queue (runNodeSuite.mjs writes the entry that calls runQueue). Each file becomes a suite named by its
// path, holding exactly the tests, suites and hooks the file declares: a file's
// top-level `after` runs when that file's tests are done, and its `beforeEach`
// wraps only its own tests. The next file is imported only then.
//
// node:test finds a declaration's parent through the async context it is called
// in, and a module evaluated through tsx's loader thread has lost that context.
// So while a file is being evaluated, its top-level declarations are made inside
// its own suite's context; declarations nested in a suite, or made from inside a
// test, are left to node:test. The named exports of the built-in `node:test` are
// swapped for those wrappers (syncBuiltinESMExports), before any test file loads.
//
// A file must leave the process as it found it: the environment, the working
// directory, the umask, the globals there were (none deleted, none replaced but by
// a subclass of itself), signal and error listeners, and nothing of its own that
// keeps the event loop alive (a server, socket, child, timer, watcher, worker). A
// file with no test or hook starting or ending for fifteen minutes, or a process
// that does not end once its queue is empty, fails the run with a list of what
// holds it open. (Not checked: new
// globals, which libraries make for their registries when first used; `exit`
// listeners, one per logger the sources make; the exit code, node:test's own.)
// Otherwise the suite fails and names what leaked; a file that cannot help it
// says `@own-process` (see runNodeSuite.mjs) and keeps a process to itself.

import { AsyncResource } from 'node:async_hooks';
import { appendFileSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const nodeTest = createRequire(import.meta.url)('node:test');

/** The suite of the file being evaluated, while it is. */
let evaluating;
/** Wrapped calls on the stack: a declaration inside another one's callback is nested already. */
let depth = 0;

/** When a test, suite body or hook last started or ended: the file limit counts from it. */
let lastActivity = performance.now();

/** `fn` as given, but each call and each end of what it returns counts as activity. */
function tracked(fn) {
  const call = function (...args) {
    lastActivity = performance.now();
    const result = fn.apply(this, args);
    lastActivity = performance.now();
    if (typeof result?.then !== 'function') return result;
    return result.finally(() => {
      lastActivity = performance.now();
    });
  };
  // node:test reads a callback's arity (a second parameter means `done`).
  Object.defineProperty(call, 'length', { value: fn.length });
  return call;
}

function inFileScope(real) {
  const wrapped = function (...args) {
    const last = args.findLastIndex((arg) => typeof arg === 'function');
    if (last >= 0) args[last] = tracked(args[last]);
    const scope = depth === 0 ? evaluating : undefined;
    depth++;
    try {
      return scope ? scope.runInAsyncScope(() => real.apply(this, args)) : real.apply(this, args);
    } finally {
      depth--;
    }
  };
  for (const variant of ['skip', 'todo', 'only']) {
    if (typeof real[variant] === 'function') wrapped[variant] = inFileScope(real[variant]);
  }
  return wrapped;
}

const { describe, after } = nodeTest;
for (const name of ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach']) {
  nodeTest[name] = inFileScope(nodeTest[name]);
}
syncBuiltinESMExports();

const WATCHED_EVENTS = ['beforeExit', 'uncaughtException', 'unhandledRejection', 'warning', 'SIGINT', 'SIGTERM'];

/**
 * What keeps the event loop alive, by kind (a listening server, a socket, a child, a timer, a watcher, a
 * worker…): every kind, because any one left behind keeps the group's process from ever ending, and
 * node:test waits for a process to end before it ends its file (the hang of docs/development.md).
 */
function resources() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** What holds the process open, each handle with what names it: an address, a pid and command, a delay. */
function holders() {
  const described = process._getActiveHandles().map((handle) => {
    const kind = handle?.constructor?.name ?? typeof handle;
    try {
      if (typeof handle.listening === 'boolean' && typeof handle.address === 'function')
        return `${kind} listening on ${JSON.stringify(handle.address())}`;
      if (kind === 'Socket' && handle.remotePort !== undefined)
        return `Socket ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
      if (kind === 'ChildProcess') return `ChildProcess ${handle.pid}: ${handle.spawnargs?.join(' ')}`;
      if (kind === 'Timeout') return `Timeout of ${handle._idleTimeout} ms (${handle._onTimeout?.name || 'anonymous'})`;
      if (typeof handle.fd === 'number') return `${kind} fd ${handle.fd}`;
    } catch {
      // described by its kind alone
    }
    return kind;
  });
  return `resources ${JSON.stringify(process.getActiveResourcesInfo())}\nhandles:\n  ${described.join('\n  ')}`;
}

/** Ends the group's process with a failure that names what was still open, instead of hanging the run. */
function giveUp(why) {
  process.stderr.write(`\n${why}\n${holders()}\n`);
  process.exit(1);
}

/**
 * How long a file in a group may go without any of its tests, suites or hooks starting or ending (a file
 * of its own is not bounded here). Counted from activity, not from the file's start: at load 40 a whole
 * file of 25 server start-ups took over ten minutes, but none of its tests took two. A file idle this
 * long waits on something that will never come. `CTXPROXY_TEST_IDLE_LIMIT_S` changes it.
 */
const IDLE_LIMIT_MS = Number(process.env.CTXPROXY_TEST_IDLE_LIMIT_S ?? 900) * 1000;
/** How long a file's servers, children and workers have to let go of the loop after its last hook. */
const SETTLE_MS = 30_000;
/** Once the queue is empty the process has this long to end by itself (node:test's report is written first). */
const EXIT_LIMIT_MS = 30_000;

/**
 * A global's value. Read, not taken from its descriptor: Node defines some globals (Request, Blob,
 * DOMException…) as getters that replace themselves with the value on first use.
 */
function globalValue(name) {
  try {
    return globalThis[name];
  } catch (error) {
    return error;
  }
}

/**
 * The global is what it was, or a drop-in subclass of it: @hono/node-server replaces Request and Response
 * with its own subclasses when a server first starts, once per process, as it does in `ctxproxy serve`.
 */
function sameOrSubclass(now, before) {
  if (Object.is(now, before)) return true;
  return typeof now === 'function' && typeof before === 'function' && now.prototype instanceof before;
}

function processState() {
  return {
    env: { ...process.env },
    cwd: process.cwd(),
    umask: process.umask(),
    globals: new Map(Object.getOwnPropertyNames(globalThis).map((name) => [name, globalValue(name)])),
    listeners: Object.fromEntries(WATCHED_EVENTS.map((event) => [event, process.listenerCount(event)])),
    resources: resources(),
  };
}

function moreResources(before) {
  const now = resources();
  return [...now]
    .filter(([kind, count]) => count > (before.get(kind) ?? 0))
    .map(([kind, count]) => `${kind} ×${count - (before.get(kind) ?? 0)}`);
}

/** What the file changed and left changed: empty when the process is as it was. */
async function leaks(before) {
  const found = [];
  const env = { ...process.env };
  for (const name of new Set([...Object.keys(before.env), ...Object.keys(env)])) {
    if (before.env[name] !== env[name]) found.push(`process.env.${name}`);
  }
  if (process.cwd() !== before.cwd) found.push(`the working directory (${process.cwd()})`);
  if (process.umask() !== before.umask) found.push('the umask');
  for (const [name, value] of before.globals) {
    if (!Object.hasOwn(globalThis, name) || !sameOrSubclass(globalValue(name), value)) found.push(`globalThis.${name}`);
  }
  for (const event of WATCHED_EVENTS) {
    if (process.listenerCount(event) !== before.listeners[event]) found.push(`process '${event}' listeners`);
  }
  // A server or child closed by the file's last hook goes away within a few turns of the loop; a worker
  // still on a background task the file's last request started (a symbol index build) lets go of the
  // loop when the task ends, seconds later on a loaded machine. What is still open after that stays.
  let resourcesLeft = moreResources(before.resources);
  for (let waited = 0; resourcesLeft.length > 0 && waited < SETTLE_MS; waited += 50) {
    await sleep(50);
    resourcesLeft = moreResources(before.resources);
  }
  if (resourcesLeft.length > 0) found.push(`still open: ${resourcesLeft.join(', ')} (${holders()})`);
  return found;
}

/**
 * CPU seconds this process and the children it has waited for have used: on Linux, from /proc (a
 * spawned `ctxproxy serve` counts for the file that started it); elsewhere this process only.
 */
function cpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // utime, stime, cutime, cstime: fields 14 to 17 of proc(5), in ticks of 1/100 s.
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

/** `SUITE_CPU_LOG=FILE`: one line per file, CPU seconds, wall seconds and path (docs/development.md). */
function logTimes(file, cpu, wall) {
  if (process.env.SUITE_CPU_LOG)
    appendFileSync(process.env.SUITE_CPU_LOG, `${cpu.toFixed(1)}\t${wall.toFixed(1)}\t${file}\n`);
}

/**
 * The next file of the run's queue (a folder of files each naming one test file, taken in name order),
 * or undefined when none is left. Taking is a rename, so two processes never run the same file.
 */
function take(queue) {
  for (const name of readdirSync(queue).sort()) {
    const taken = path.join(queue, '..', `taken-${name}`);
    try {
      renameSync(path.join(queue, name), taken);
    } catch (error) {
      if (error.code === 'ENOENT') continue; // another process took it first
      throw error;
    }
    return readFileSync(taken, 'utf8');
  }
  return undefined;
}

/**
 * Runs the queue's files one after another, each as a suite named by its path from `root`, until the
 * queue is empty: the run's processes share the files out as they go, so they end at about the same time.
 */
export async function runQueue(root, queue) {
  for (let file = take(queue); file !== undefined; file = take(queue)) {
    // Awaited here, at the top of the module, so the next suite is declared at the top too.
    await new Promise((ended) => runFile(root, file, ended));
  }
  // Unreferenced: it fires only while something else holds the process open.
  setTimeout(
    () => giveUp(`The test files of this process ended ${EXIT_LIMIT_MS / 1000} s ago, but something holds it open.`),
    EXIT_LIMIT_MS,
  ).unref();
}

/** Declares the suite of one file; `ended` is called once its tests and hooks are done. */
function runFile(root, file, ended) {
  const name = path.relative(root, file);
  describe(name, async () => {
    // Made before the first await, so node:test maps it to this suite.
    const scope = new AsyncResource('ctxproxy:test-file');
    const before = processState();
    const started = { cpu: cpuSeconds(), wall: performance.now() };
    lastActivity = performance.now();
    const limit = setInterval(() => {
      const idle = performance.now() - lastActivity;
      if (idle > IDLE_LIMIT_MS)
        giveUp(
          `${name}: no test or hook started or ended for ${Math.round(idle / 1000)} s; it waits on something that never comes.`,
        );
    }, 10_000);
    limit.unref();
    evaluating = scope;
    try {
      await import(pathToFileURL(file).href);
    } catch (error) {
      clearInterval(limit);
      ended();
      throw error;
    } finally {
      evaluating = undefined;
    }
    // Declared last, so it runs after the file's own `after` hooks.
    scope.runInAsyncScope(() =>
      after(async () => {
        try {
          logTimes(name, cpuSeconds() - started.cpu, (performance.now() - started.wall) / 1000);
          const left = await leaks(before);
          if (left.length > 0) {
            throw new Error(
              `${name} changed the process it shares with other test files: ${left.join(', ')}. ` +
                'Restore it in an after hook, or mark the file @own-process.',
            );
          }
        } finally {
          clearInterval(limit);
          ended();
        }
      }),
    );
  });
}
