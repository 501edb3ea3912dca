// The name part of a `Host` header value or a configured host, compared
// case-insensitively. The port is dropped: what DNS rebinding controls is the
// name, never the port the browser connects to.

export function bareHostName(value: string): string {
  const lower = value.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end === -1 ? lower : lower.slice(0, end + 1);
  }
  // An unbracketed IPv6 literal (a --host value such as `::1`) is written bracketed, as in a Host header.
  if ((lower.match(/:/g) ?? []).length > 1) return `[${lower}]`;
  return lower.replace(/:\d*$/, '');
}
