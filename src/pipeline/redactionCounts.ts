// Findings by rule id, added up across a request's parts (headers, messages, context, reply).
// Apart from the redact stage so that the request record can use it without the stage's types.

/** Findings by rule id. */
export type RedactionCounts = Record<string, number>;

/** Adds `more`'s findings to `into` (in place) and returns it. */
export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [rule, n] of Object.entries(more)) into[rule] = (into[rule] ?? 0) + n;
  return into;
}
