// What happens to each field a client sends: the one table that decides what
// is forwarded to each upstream kind, what the audit log stores, and how its
// strings are treated. A field that is not listed here is dropped: it never
// reaches an upstream and is never stored. cleanRequest.ts applies the table.
//
// Paths: `a.b` is key b of object a; `a[]` is each element of array a.

export type Treatment =
  /** A container: each key (object) or element (array) is looked up in this table on its own. */
  | 'walk'
  /** Every string in it, at any depth, is redacted, object keys included; numbers, booleans, null pass. */
  | 'redact'
  /** The client's words: redacted by the message stage (setting redactMessages); a list is walked. */
  | 'content'
  /** Numbers, booleans, null, and strings listed in `values`; anything else is dropped. */
  | 'pass'
  /** A base64 data URL, rebuilt without its parameters; stored as media type, size and sha256. */
  | 'image'
  /** Never forwarded, never stored. */
  | 'drop';

export interface FieldRule {
  forwardToOllama: boolean;
  forwardToOpenAI: boolean;
  /** Written to the audit log (the snapshot keeps the model, the messages and the headers below). */
  store: boolean;
  treatment: Treatment;
  /** For `pass`: the only strings allowed through. */
  values?: readonly string[];
  /** Why, when it is not obvious. */
  note?: string;
  /** For a field of another API (Anthropic's): the chat field it becomes, whose rule it then follows. */
  mapsTo?: string;
}

const both = (treatment: Treatment, extra: Partial<FieldRule> = {}): FieldRule => ({
  forwardToOllama: true,
  forwardToOpenAI: true,
  store: false,
  treatment,
  ...extra,
});
const stored = (treatment: Treatment, extra: Partial<FieldRule> = {}): FieldRule =>
  both(treatment, { store: true, ...extra });
const openaiOnly = (treatment: Treatment, note: string): FieldRule => ({
  forwardToOllama: false,
  forwardToOpenAI: true,
  store: false,
  treatment,
  note,
});
const dropped = (note: string): FieldRule => ({
  forwardToOllama: false,
  forwardToOpenAI: false,
  store: false,
  treatment: 'drop',
  note,
});

/** The chat-completions request body. */
export const REQUEST_FIELDS: Readonly<Record<string, FieldRule>> = {
  model: stored('redact', { note: 'a `+mode` suffix is stripped before forwarding' }),
  messages: stored('walk'),
  'messages[]': stored('walk'),
  'messages[].role': stored('pass', { values: ['system', 'developer', 'user', 'assistant', 'tool'] }),
  'messages[].content': stored('content'),
  'messages[].content[]': stored('walk'),
  'messages[].content[].type': stored('pass', { values: ['text', 'image_url'] }),
  'messages[].content[].text': stored('content'),
  'messages[].content[].image_url': stored('image', {
    note: 'Ollama gets the base64 bytes, OpenAI kind `data:<type>;base64,…`; the log keeps type, size, sha256',
  }),
  'messages[].name': stored('redact', { note: 'Ollama: only as tool_name of a tool message' }),
  'messages[].tool_calls': stored('walk'),
  'messages[].tool_calls[]': stored('walk'),
  'messages[].tool_calls[].id': stored('redact', { note: 'Ollama: only to name the tool results, not sent' }),
  'messages[].tool_calls[].type': stored('pass', { values: ['function'] }),
  'messages[].tool_calls[].function': stored('walk'),
  'messages[].tool_calls[].function.name': stored('redact'),
  'messages[].tool_calls[].function.arguments': stored('content'),
  'messages[].tool_call_id': stored('redact'),
  tools: both('walk'),
  'tools[]': both('walk'),
  'tools[].type': both('pass', { values: ['function'] }),
  'tools[].function': both('walk'),
  'tools[].function.name': both('redact'),
  'tools[].function.description': both('redact'),
  'tools[].function.parameters': both('redact', { note: 'the JSON schema: every key and string leaf' }),
  'tools[].function.strict': openaiOnly('pass', 'Ollama has no strict mode'),
  stream: dropped('read by ctxproxy; both adapters always stream upstream'),
  stream_options: dropped('read by ctxproxy (include_usage); the OpenAI adapter sets its own'),
  tool_choice: both('redact', { note: 'Ollama: only "none" is honoured, by withholding the tools' }),
  temperature: both('pass'),
  top_p: both('pass'),
  max_tokens: both('pass'),
  max_completion_tokens: both('pass'),
  seed: both('pass'),
  presence_penalty: both('pass'),
  frequency_penalty: both('pass'),
  n: both('pass', { note: 'only 1 is accepted' }),
  stop: both('redact'),
  response_format: both('redact', { note: 'Ollama: `format`; the schema is redacted like tool schemas' }),
  reasoning_effort: both('redact', { note: 'Ollama: `think`; an unknown value is a 400' }),
  user: openaiOnly('redact', 'an end-user id; Ollama has no such field'),
  metadata: openaiOnly('redact', 'free-form tags; Ollama has no such field'),
  parallel_tool_calls: openaiOnly('pass', 'Ollama has no such option'),
  logprobs: openaiOnly('pass', 'Ollama: not mapped'),
  top_logprobs: openaiOnly('pass', 'Ollama: not mapped'),
  logit_bias: openaiOnly('redact', 'token id → bias'),
  top_k: both('pass', { note: 'Ollama: options.top_k; a llama.cpp / vLLM extension for the openai kind' }),
  min_p: openaiOnly('pass', 'llama.cpp / vLLM sampling extension'),
  repeat_penalty: openaiOnly('pass', 'llama.cpp sampling extension'),
  store: dropped('OpenAI-hosted stored completions'),
  service_tier: dropped('OpenAI-hosted'),
  modalities: dropped('audio output is not supported'),
  audio: dropped('audio output is not supported'),
  prediction: dropped('predicted outputs are not supported'),
  web_search_options: dropped('ctxproxy never lets the model reach the web'),
};

/** An Anthropic field that becomes the chat field `chatPath`: it follows that field's rule. */
const becomes = (chatPath: string, note?: string): FieldRule => {
  const rule = REQUEST_FIELDS[chatPath];
  if (!rule) throw new Error(`fieldPolicy: no chat field ${chatPath}`);
  return { ...rule, mapsTo: chatPath, ...(note ? { note } : {}) };
};
/** An Anthropic container: its parts are looked up on their own; nothing of it is kept but what they map to. */
const container = (note?: string): FieldRule => ({ ...both('walk'), ...(note ? { note } : {}) });

/**
 * The Anthropic Messages request (POST /v1/messages, /v1/messages/count_tokens).
 * pipeline/messagesInput.ts maps it to the chat request above, field by field as
 * listed here, so each string reaches the redactor through the chat field it
 * becomes; a top-level field not listed is dropped and counted in a warning.
 */
export const MESSAGES_REQUEST_FIELDS: Readonly<Record<string, FieldRule>> = {
  model: becomes('model'),
  max_tokens: becomes('max_tokens', 'required; the reply reserve is fitted under it as for chat'),
  messages: container(),
  'messages[]': container(),
  'messages[].role': becomes('messages[].role', 'user or assistant'),
  'messages[].content': becomes('messages[].content', 'a string, or blocks mapped one by one'),
  'messages[].content[]': container(),
  'messages[].content[].type': becomes(
    'messages[].content[].type',
    'text, image, tool_use, tool_result; thinking blocks are not sent back; other types are left out with a warning',
  ),
  'messages[].content[].text': becomes('messages[].content[].text'),
  'messages[].content[].cache_control': dropped("prompt caching is the upstream's own (Ollama keeps its prefix cache)"),
  'messages[].content[].source': becomes(
    'messages[].content[].image_url',
    'base64 → a data URL; a url source is a 400 (ctxproxy does not fetch)',
  ),
  'messages[].content[].id': becomes('messages[].tool_calls[].id', 'of a tool_use block'),
  'messages[].content[].name': becomes('messages[].tool_calls[].function.name', 'of a tool_use block'),
  'messages[].content[].input': becomes(
    'messages[].tool_calls[].function.arguments',
    'of a tool_use block, as JSON text',
  ),
  'messages[].content[].tool_use_id': becomes('messages[].tool_call_id', 'a tool_result block becomes a tool message'),
  'messages[].content[].content': becomes(
    'messages[].content',
    'of a tool_result block: a string or text and image blocks',
  ),
  'messages[].content[].is_error': becomes('messages[].content', 'true: the tool message starts with "Error:"'),
  'messages[].content[].thinking': dropped('earlier reasoning is not sent back, as with chat completions'),
  'messages[].content[].signature': dropped("Anthropic's reasoning signature"),
  'messages[].content[].data': dropped("redacted_thinking: Anthropic's encrypted reasoning"),
  'messages[].content[].citations': dropped('citations of Anthropic-hosted search'),
  system: becomes('messages[].content', 'a system message first; text blocks joined by blank lines'),
  'system[]': container(),
  'system[].type': becomes('messages[].content[].type', 'text only'),
  'system[].text': becomes('messages[].content[].text'),
  'system[].cache_control': dropped("prompt caching is the upstream's own"),
  tools: becomes('tools'),
  'tools[]': becomes('tools[]'),
  'tools[].type': becomes(
    'tools[].type',
    'absent or "custom"; server tools (web_search_*, bash_*, text_editor_* …) are left out with a warning',
  ),
  'tools[].name': becomes('tools[].function.name'),
  'tools[].description': becomes('tools[].function.description'),
  'tools[].input_schema': becomes('tools[].function.parameters'),
  'tools[].cache_control': dropped("prompt caching is the upstream's own"),
  tool_choice: becomes('tool_choice', 'auto → "auto", any → "required", tool → that function, none → "none"'),
  'tool_choice.type': becomes('tool_choice'),
  'tool_choice.name': becomes('tool_choice', 'the function to call, for type tool'),
  'tool_choice.disable_parallel_tool_use': becomes('parallel_tool_calls', 'true → parallel_tool_calls: false'),
  stop_sequences: becomes('stop'),
  temperature: becomes('temperature'),
  top_p: becomes('top_p'),
  top_k: becomes('top_k'),
  stream: becomes('stream'),
  metadata: container(),
  'metadata.user_id': becomes('user'),
  thinking: becomes(
    'reasoning_effort',
    'disabled → "none"; any other type (enabled, adaptive …) → the effort asked or "medium" (Ollama: think on)',
  ),
  'thinking.type': becomes('reasoning_effort'),
  'thinking.budget_tokens': dropped('no upstream takes a thinking budget; max_tokens bounds the whole reply'),
  output_config: container(),
  'output_config.effort': becomes('reasoning_effort', 'low, medium, high; max and xhigh → "high"'),
  'output_config.format': becomes('response_format', 'json_schema → response_format json_schema (Ollama: `format`)'),
  'thinking.display': dropped("how Anthropic shows its own thinking; the upstream's is sent as it comes"),
  cache_control: dropped("prompt caching is the upstream's own"),
  diagnostics: dropped('Anthropic-hosted prompt-cache diagnostics'),
  inference_geo: dropped('Anthropic-hosted'),
  speed: dropped('Anthropic-hosted'),
  service_tier: dropped('Anthropic-hosted'),
  container: dropped('Anthropic-hosted code execution'),
  mcp_servers: dropped('Anthropic-hosted MCP connector: ctxproxy never lets the model reach the network'),
  context_management: dropped('Anthropic-hosted context editing'),
};

export interface HeaderRule {
  /** Written to the audit log, redacted and cut to this many UTF-8 bytes. Headers are never forwarded. */
  storeMaxBytes: number;
  note?: string;
}

/**
 * Request headers that reach the audit log. No client header is forwarded to
 * an upstream (the adapters send their own); headers not listed are not stored.
 */
export const STORED_HEADERS: Readonly<Record<string, HeaderRule>> = {
  'user-agent': { storeMaxBytes: 512 },
  'x-request-id': { storeMaxBytes: 100, note: 'stored as the request id when the client sends one' },
};

/** Other stored text that can quote the client (a bad mode, a bad JSON body): redacted and capped. */
export const STORED_ERROR_MESSAGE_MAX_BYTES = 1024;

export type UpstreamKind = 'ollama' | 'openai';

/** The rule for a path, or undefined: not listed, so dropped. */
export function ruleFor(path: string): FieldRule | undefined {
  return Object.hasOwn(REQUEST_FIELDS, path) ? REQUEST_FIELDS[path] : undefined;
}

export function forwardedTo(rule: FieldRule, kind: UpstreamKind): boolean {
  return kind === 'ollama' ? rule.forwardToOllama : rule.forwardToOpenAI;
}
