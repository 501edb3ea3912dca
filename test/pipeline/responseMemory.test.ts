// The memory behind previous_response_id keeps each response under the scope
// that made it (workspace and, with a token, the token's digest): another scope
// finds neither the response nor its output items. The route passes the scope;
// test/integration/workspaceBoundaries.test.ts drives it through the server.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResponseMemory } from '../../src/pipeline/responseMemory.ts';

const A = '/work/repo-a\u0000';
const B = '/work/repo-b\u0000';
const A_OTHER_TOKEN = '/work/repo-a\u0000digest-of-another-token';

describe('response memory scopes', () => {
  it('gives a response and its items back only to the scope that made them', () => {
    const memory = new ResponseMemory();
    const item = { type: 'message', id: 'msg_1', role: 'assistant', content: [] };
    memory.remember('resp_1', { history: [{ role: 'user', content: 'secret plan' }] }, [item], A);
    assert.deepEqual(memory.response('resp_1', A)?.history, [{ role: 'user', content: 'secret plan' }]);
    assert.deepEqual(memory.item('msg_1', A), item);
    for (const scope of [B, A_OTHER_TOKEN]) {
      assert.equal(memory.response('resp_1', scope), undefined);
      assert.equal(memory.item('msg_1', scope), undefined);
    }
  });
});
