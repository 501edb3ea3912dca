// `/audit/conversations/:id`: steps through one conversation's turns and shows
// what changed between a turn and the one before it, in the context block and
// in the forwarded messages. A stable context shows as "unchanged", which is
// the point: the upstream's prompt cache keeps working.

import type { Snapshot, SnapshotSummary } from '../shared/types.ts';
import { excerpt, formatTime, modeLabel } from './format.ts';
import { conversationPath, Layout, OutcomeBadge, snapshotPath } from './layout.tsx';
import { type DiffLine, diffStats, foldUnchanged, lineDiff } from './lineDiff.ts';
import { messagesAsLines } from './messageText.ts';
import { Highlighted } from './messageView.tsx';

export interface ConversationPageProps {
  conversationId: string;
  turns: SnapshotSummary[];
  /** 0-based index of the turn shown. */
  index: number;
  current: Snapshot;
  previous?: Snapshot | undefined;
  signedIn: boolean;
}

const PREFIX = { same: '  ', add: '+ ', remove: '- ' } as const;

function Diff({ title, lines }: { title: string; lines: DiffLine[] }) {
  const { added, removed } = diffStats(lines);
  return (
    <section class="change" data-diff={title}>
      <h3>
        {title}{' '}
        <span class="small muted">
          {added === 0 && removed === 0 ? `unchanged (${lines.length} lines)` : `+${added} −${removed} lines`}
        </span>
      </h3>
      {added === 0 && removed === 0 ? null : (
        <div class="diff">
          {foldUnchanged(lines).map((line) =>
            line.op === 'skip' ? (
              <div class="skip">… {line.count} unchanged lines</div>
            ) : (
              <div class={line.op}>
                {PREFIX[line.op]}
                <Highlighted text={line.text} />
              </div>
            ),
          )}
        </div>
      )}
    </section>
  );
}

function Steps({ conversationId, turns, index }: { conversationId: string; turns: SnapshotSummary[]; index: number }) {
  return (
    <nav class="steps" aria-label="Turns">
      {index > 0 ? (
        <a href={conversationPath(conversationId, index)} rel="prev">
          ‹ Previous
        </a>
      ) : null}
      {turns.map((turn, i) =>
        i === index ? (
          <span class="current" aria-current="step">
            {i + 1}
          </span>
        ) : (
          <a href={conversationPath(conversationId, i + 1)} title={excerpt(turn.question, 80)}>
            {i + 1}
          </a>
        ),
      )}
      {index < turns.length - 1 ? (
        <a href={conversationPath(conversationId, index + 2)} rel="next">
          Next ›
        </a>
      ) : null}
    </nav>
  );
}

export function ConversationPage({ conversationId, turns, index, current, previous, signedIn }: ConversationPageProps) {
  return (
    <Layout title={`Conversation turn ${index + 1}`} signedIn={signedIn}>
      <h1>
        Conversation <span class="mono small">{conversationId}</span>
      </h1>
      <Steps conversationId={conversationId} turns={turns} index={index} />
      <h2>
        Turn {index + 1} of {turns.length} <OutcomeBadge outcome={current.outcome} />
      </h2>
      <dl class="facts">
        <dt>Time</dt>
        <dd>
          <a href={snapshotPath(current.id)}>{formatTime(current.createdAt)}</a>
        </dd>
        <dt>Mode asked → used</dt>
        <dd>{modeLabel(current.modeAsked, current.modeUsed)}</dd>
        <dt>Question</dt>
        <dd>{excerpt(turns[index]?.question ?? '', 300)}</dd>
      </dl>
      {previous ? (
        <>
          <h2>Changed since turn {index}</h2>
          <Diff title="Context block" lines={lineDiff(previous.contextBlock ?? '', current.contextBlock ?? '')} />
          <Diff
            title="Forwarded messages"
            lines={lineDiff(
              messagesAsLines(previous.forwarded, previous.contextBlock),
              messagesAsLines(current.forwarded, current.contextBlock),
            )}
          />
        </>
      ) : (
        <p class="muted">
          The first turn: nothing to compare with. Its full context is on its{' '}
          <a href={snapshotPath(current.id)}>detail page</a>.
        </p>
      )}
    </Layout>
  );
}
