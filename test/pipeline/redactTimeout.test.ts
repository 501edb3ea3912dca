import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactMessages } from '../../src/pipeline/redactStage.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { BadRequestError } from '../../src/shared/errors.ts';

test('a message too large to scan in time is a 400 that says so, not a 500', async () => {
  const redactor = await createRedactor({ timeoutMs: 1 });
  const text = 'password = hunter2 token=abc '.repeat(40_000);
  await assert.rejects(
    () => redactMessages([{ role: 'user', content: text }], redactor, {}),
    (error: unknown) =>
      error instanceof BadRequestError &&
      error.status === 400 &&
      error.code === 'message_too_large_to_scan' &&
      error.param === 'messages',
  );
});
