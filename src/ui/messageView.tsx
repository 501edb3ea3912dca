// One forwarded message as the model saw it: plain text with redaction
// markers highlighted, and each context fence folded under its source with
// its size (and the source's totals from the snapshot's report).

import { splitContextFences } from '../shared/contextFences.ts';
import type { ChatMessage, ContextPart, ContextPartSource, SourceReport, ToolCall } from '../shared/types.ts';
import { formatCount, plural } from './format.ts';
import { shownText, splitRedactions } from './messageText.ts';
import { PartOrigin, partKind } from './reportSections.tsx';

export function Highlighted({ text }: { text: string }) {
  return (
    <>
      {splitRedactions(text).map((piece) =>
        piece.kind === 'text' ? (
          piece.text
        ) : (
          <mark class="redacted" title={`Masked by rule ${piece.ruleId}`}>
            {piece.text}
          </mark>
        ),
      )}
    </>
  );
}

/**
 * A `<pre>` whose text content is exactly `text`: the HTML parser drops one
 * newline right after `<pre>`, so one is always given to it to drop.
 */
export function Pre({ text, class: className }: { text: string; class?: string | undefined }) {
  return (
    <pre class={className}>
      {'\n'}
      <Highlighted text={text} />
    </pre>
  );
}

/** Newlines around a fence are layout, not content worth a blank line on screen. */
export function trimNewlines(text: string): string {
  return text.replace(/^\n+|\n+$/g, '');
}

/** The report of the source that produced a fence: exact key first, else its namespace (`git.status` → `git`). */
export function reportForFence(fenceSource: string, sources: SourceReport[]): SourceReport | undefined {
  const exact = sources.find((report) => report.source === fenceSource);
  if (exact) return exact;
  const namespace = fenceSource.split('.')[0];
  return sources.find((report) => report.source === namespace);
}

function ContextBlock({
  source,
  update,
  text,
  sources,
  share,
}: {
  source: string;
  update: boolean;
  text: string;
  sources: SourceReport[];
  /** The source's share of the block or update this fence is in, when the snapshot accounts for it. */
  share?: ContextPartSource | undefined;
}) {
  const report = reportForFence(source, sources);
  const item = share?.items?.find((candidate) => candidate.key === source);
  const trimmed =
    item?.trimmed ?? report?.trimmed?.some((key) => key === source || source.startsWith(`${key}.`)) ?? false;
  return (
    <details class="ctx" data-source={source}>
      <summary>
        {update ? 'changed since the conversation began: ' : ''}
        <span class="mono">{source}</span> · {formatCount(text.length)} chars
        {item ? ` · ${formatCount(item.tokens)} tokens` : ''}
        {trimmed ? ' · trimmed' : ''}
        {share ? (
          <span class="muted small">
            {' '}
            (source {share.source} here: {plural(share.keys.length, 'item')}, {formatCount(share.chars)} chars,{' '}
            {formatCount(share.tokens)} tokens)
          </span>
        ) : report ? (
          <span class="muted small">
            {' '}
            (source {report.source}: {plural(report.items, 'item')}, {formatCount(report.chars)} chars,{' '}
            {formatCount(report.tokens)} tokens)
          </span>
        ) : null}
        {item?.why ? <div class="small why-line">why: {item.why}</div> : null}
      </summary>
      <Pre class="ctx-text" text={text} />
    </details>
  );
}

export function ToolCalls({ calls }: { calls: ToolCall[] }) {
  return (
    <ul class="tool-calls">
      {calls.map((call) => (
        <li>
          <span class="mono">{call.function.name}</span> <span class="muted small">({call.id})</span>
          <Pre text={call.function.arguments} />
        </li>
      ))}
    </ul>
  );
}

/** Where the context in a message came from: this request, or an earlier turn. */
function PartBadges({ parts }: { parts: ContextPart[] }) {
  return (
    <>
      {parts.map((part) => (
        <span class="muted small" data-part-origin={part.carried ? 'carried' : 'new'}>
          {' '}
          · {partKind(part)} <PartOrigin part={part} />
        </span>
      ))}
    </>
  );
}

export function MessageView({
  message,
  index,
  sources,
  parts = [],
}: {
  message: ChatMessage;
  index: number;
  sources: SourceReport[];
  /** The snapshot's context parts in this message. */
  parts?: ContextPart[] | undefined;
}) {
  const text = shownText(message);
  const shareOf = (key: string, update: boolean) =>
    parts
      .filter((part) => (part.kind === 'update') === update)
      .flatMap((part) => part.sources)
      .find((share) => share.keys.includes(key));
  const segments = splitContextFences(text).filter(
    (segment) => segment.kind === 'context' || segment.text.trim() !== '',
  );
  return (
    <section class="msg" data-role={message.role} data-index={index}>
      <div class="head">
        <span>
          <span class="role">
            {index + 1}. {message.role}
          </span>
          {message.name ? <span class="muted"> · {message.name}</span> : null}
          {message.tool_call_id ? <span class="muted small"> · answers {message.tool_call_id}</span> : null}
          <PartBadges parts={parts} />
        </span>
        <span class="muted small">{formatCount(text.length)} chars</span>
      </div>
      <div class="body">
        {segments.length === 0 && !message.tool_calls?.length ? <p class="muted small">(empty)</p> : null}
        {segments.map((segment) =>
          segment.kind === 'context' ? (
            <ContextBlock
              source={segment.source}
              update={segment.update}
              text={segment.text}
              sources={sources}
              share={shareOf(segment.source, segment.update)}
            />
          ) : (
            <Pre class="msg-text" text={trimNewlines(segment.text)} />
          ),
        )}
        {message.tool_calls?.length ? <ToolCalls calls={message.tool_calls} /> : null}
      </div>
    </section>
  );
}
