// The prompt-cache promise, measured: in a scripted 20-turn session with edits
// between turns, turn N+1's forwarded prompt begins with turn N's bytes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runScriptedSession } from '../support/scriptedSession.ts';

test('turn N+1 begins with turn N’s bytes in at least 95% of a 20-turn session with edits', async () => {
  const result = await runScriptedSession({ turns: 20 });
  const ratio = result.stable / result.pairs;
  console.log(
    `prefix-stable turns: ${result.stable}/${result.pairs} (${(100 * ratio).toFixed(1)}%), ${result.updates} context updates`,
  );
  assert.ok(ratio >= 0.95, `only ${result.stable}/${result.pairs}; unstable turns ${result.unstable.join(', ')}`);
  assert.ok(result.updates >= 5, `the edits reached the model as updates (${result.updates})`);
  assert.ok(result.audit.carried >= 19, 'every later turn carried the block');
});
