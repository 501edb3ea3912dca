// How much work a call costs, as this process's CPU time (user + system) rather than the time on the clock:
// on a shared 2-core machine at load 40 a call waits for a core far longer than it computes, and a bound
// on the clock then fails for the machine's sake, not the code's. CPU time counts what the call itself did
// (and any of this process's threads meanwhile, such as the collector's), so the bounds that use it can stay
// close enough to catch quadratic work.

function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU milliseconds that `fn` took, with what it returned. */
export async function cpuMs<T>(fn: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const started = cpuNow();
  const result = await fn();
  return { ms: cpuNow() - started, result };
}
