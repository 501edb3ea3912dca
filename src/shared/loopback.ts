// Whether a host name or a socket address is this machine. One check for the
// listening host, the upstream URL and a client's address, so "local" means the
// same everywhere ctxproxy decides whether something leaves the machine.

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** 127.0.0.0/8, ::1 (also `[::1]` and IPv4-mapped `::ffff:127.x.y.z`) and `localhost`. */
export function isLoopback(hostOrAddress: string | undefined): boolean {
  if (!hostOrAddress) return false;
  const host = hostOrAddress.replace(/^\[|\]$/g, '');
  const plain = host.startsWith('::ffff:') ? host.slice(7) : host;
  return plain === 'localhost' || plain === '::1' || IPV4_LOOPBACK.test(plain);
}
