// The Anthropic Messages API request as we accept it (POST /v1/messages and
// /v1/messages/count_tokens, what Claude Code and @anthropic-ai/sdk send).
// Content blocks and tools are checked loosely here and mapped, with a 400
// naming what is wrong, in pipeline/messagesInput.ts; fieldPolicy.ts says
// what becomes of each field.

import { z } from 'zod';

const block = z.record(z.string(), z.unknown());

const message = z
  .object({
    // Claude Code (2.1) also sends its environment notes as a `system` turn inside messages.
    role: z.enum(['user', 'assistant', 'system']),
    content: z.union([z.string(), z.array(block)]),
  })
  .passthrough();

const fields = {
  model: z.string().min(1),
  messages: z.array(message).min(1),
  /** A string, or text blocks (their cache_control is ignored). */
  system: z
    .union([z.string(), z.array(block)])
    .nullable()
    .optional(),
  tools: z.array(block).nullable().optional(),
  tool_choice: z
    .object({
      type: z.enum(['auto', 'any', 'tool', 'none']),
      name: z.string().optional(),
      disable_parallel_tool_use: z.boolean().optional(),
    })
    .passthrough()
    .nullable()
    .optional(),
  thinking: z
    .object({ type: z.string(), budget_tokens: z.number().int().optional() })
    .passthrough()
    .nullable()
    .optional(),
  /** Newer clients say how hard to think here instead of a thinking budget. */
  output_config: z
    .object({
      effort: z.string().nullable().optional(),
      format: z.record(z.string(), z.unknown()).nullable().optional(),
    })
    .passthrough()
    .nullable()
    .optional(),
};

export const messagesRequestSchema = z
  .object({
    ...fields,
    /** Required by Anthropic, and so here: it is the reply's ceiling. */
    max_tokens: z.number().int().positive(),
    stream: z.boolean().nullable().optional(),
    stop_sequences: z.array(z.string()).nullable().optional(),
    temperature: z.number().nullable().optional(),
    top_p: z.number().nullable().optional(),
    top_k: z.number().int().nullable().optional(),
    metadata: z.object({ user_id: z.string().nullable().optional() }).passthrough().nullable().optional(),
  })
  .passthrough();

/** count_tokens takes the prompt without the sampling fields; max_tokens is not needed to count. */
export const countTokensRequestSchema = z.object(fields).passthrough();

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
/** One content block, tool definition or system block, as JSON. */
export type MessagesBlock = Record<string, unknown>;
