// One budget for the in-memory caches that hold request text (conversation states with their context
// blocks, redacted copies of messages and items, remembered Responses conversations, the field memo's
// JSON, token counts per line): each cache gets a share, and the shares add up to the budget. Each cache
// was bounded on its own before and the bounds added up to ~140 MB, more than the whole server may use
// (issue 28: at most 150 MB resident, of which ~130 MB is a server at rest on a git workspace).
//
// The shares follow what the caches held and how often they were hit in bench/overhead/rss.ts's mixes
// (bench/overhead/README.md, "Request-text caches"): a cache has to hold the recent conversations' working
// set, not a long-running server's history. A character counts as a byte, as V8 stores most text.

const MB = 1024 * 1024;

export const TEXT_CACHE_BUDGET_BYTES = 32 * MB;

export const TEXT_CACHE_BYTES = {
  /** Conversation states by history key (pipeline/conversations.ts): what a follow-up needs to be recognised. */
  conversations: 8 * MB,
  /** Redaction results by content hash (redact/resultCache.ts): a resent message or unchanged file is not rescanned. */
  redactionResults: 16 * MB,
  /** Responses by id for `previous_response_id` and `item_reference` (pipeline/responseMemory.ts). */
  responses: 4 * MB,
  /** Redacted JSON of fields clients resend every turn, tool schemas above all (pipeline/cleanRequest.ts). */
  fieldMemo: 2 * MB,
  /** Token counts per line of long texts (budget/tokenCounter.ts). */
  lineCounts: 2 * MB,
} as const;
