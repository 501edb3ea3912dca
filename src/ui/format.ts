// Small, pure formatting helpers shared by the audit pages. They return plain
// strings; escaping is left to JSX, which escapes every interpolated value.

const numberFormat = new Intl.NumberFormat('en-US');

export function formatCount(value: number | undefined): string {
  return value === undefined ? '–' : numberFormat.format(value);
}

export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** Local time of the server, which is the user's machine (the proxy serves loopback). */
export function formatTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** First line-ish of a question, collapsed to one line and cut at `max` characters. */
export function excerpt(text: string, max = 120): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

export function modeLabel(asked: string, used: string): string {
  return asked === used ? used : `${asked} → ${used}`;
}

export function plural(count: number | undefined, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}
