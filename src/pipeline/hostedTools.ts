// Tools the client's provider would run on its own servers (web search, file
// search, computer use, code interpreter, MCP connectors, Codex's `namespace`
// groups …) are every tool whose `type` is not `function`. A local model cannot
// run them, and Ollama's own OpenAI layer accepts a request that lists them, so
// ctxproxy leaves them out of the forwarded request and says so, instead of
// refusing what works against Ollama directly. Function tools go through.

import type { ChatRequest } from '../shared/chatRequest.ts';
import { type HostedTool, isFunctionTool } from '../shared/chatRequest.ts';
import type { Redactor } from '../shared/types.ts';

/** A type worth naming in a warning: OpenAI's are short snake_case words; anything else is only counted. */
const NAMEABLE_TYPE = /^[a-z][a-z0-9_]{0,39}$/;

export interface WithoutHostedTools {
  request: ChatRequest;
  /** One ASCII sentence for `X-Ctx-Warning` and the snapshot, when a tool was left out. */
  warning?: string | undefined;
}

export async function withoutHostedTools(request: ChatRequest, redactor: Redactor): Promise<WithoutHostedTools> {
  const tools = request.tools ?? [];
  const hosted = tools.filter((tool): tool is HostedTool => !isFunctionTool(tool));
  if (hosted.length === 0) return { request };
  const kept = tools.filter(isFunctionTool);
  const { tools: _tools, ...rest } = request;
  const cleaned: ChatRequest = kept.length > 0 ? { ...rest, tools: kept } : rest;
  // A tool_choice that names a left-out tool would point the model at nothing: the model chooses.
  if (choosesHostedTool(request.tool_choice)) cleaned.tool_choice = kept.length > 0 ? 'auto' : undefined;
  if (cleaned.tool_choice === undefined) delete cleaned.tool_choice;
  return { request: cleaned, warning: await warningFor(hosted, redactor) };
}

function choosesHostedTool(choice: unknown): boolean {
  if (choice === null || typeof choice !== 'object') return false;
  const type = (choice as { type?: unknown }).type;
  return typeof type === 'string' && type !== 'function' && type !== 'allowed_tools';
}

/**
 * The types are client text: each is named only when it looks like a tool type and the redactor
 * finds nothing in it (fail closed: a scan that throws names nothing).
 */
async function warningFor(hosted: HostedTool[], redactor: Redactor): Promise<string> {
  const named = new Set<string>();
  let unnamed = 0;
  for (const tool of hosted) {
    if (await nameable(tool.type, redactor)) named.add(tool.type);
    else unnamed += 1;
  }
  const list = [...named, ...(unnamed > 0 ? [`${unnamed} of another type`] : [])].join(', ');
  const count = hosted.length === 1 ? '1 tool' : `${hosted.length} tools`;
  return `left out ${count} a local model cannot run (${list}); function tools are forwarded`;
}

async function nameable(type: string, redactor: Redactor): Promise<boolean> {
  if (!NAMEABLE_TYPE.test(type)) return false;
  try {
    return (await redactor.redact(type)).findings.length === 0;
  } catch {
    return false;
  }
}
