import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '@codesift/query';
import { decideRewrite } from './rewrite-decision.js';

const decide = (q: string, mode: 'auto' | 'on' | 'off' = 'auto', model: string | null = 'm') =>
  decideRewrite(parseQuery(q), mode, model);

test('natural-language questions run; nothing runs without a model or with off', () => {
  assert.equal(decide('where are edges inserted into the graph').decision, 'run');
  const none = decide('where are edges inserted into the graph', 'auto', null);
  assert.deepEqual([none.decision, none.retryOnEmpty], ['skip', false]);
  assert.match(none.reason, /no model/);
  assert.equal(decide('where are edges inserted into the graph', 'off').decision, 'skip');
});

test('identifiers, qualified names and stack traces are never sent, even with on', () => {
  for (const q of ['GraphStore.addEdge', 'addEdge parse_flags', 'src/graph.ts', 'os.path.join()']) {
    const d = decide(q, 'on');
    assert.deepEqual([d.decision, d.retryOnEmpty], ['skip', false], q);
  }
  const trace =
    'TypeError: x is undefined\n    at addEdge (/repo/src/graph.ts:12:5)\n    at main (/repo/src/main.ts:3:1)';
  assert.match(decide(trace, 'on').reason, /stack trace/);
});

test('short keyword queries: skipped in auto (retry on empty allowed), run with on', () => {
  const d = decide('graph edges');
  assert.deepEqual([d.decision, d.retryOnEmpty], ['skip', true]);
  assert.equal(decide('graph edges', 'on').decision, 'run');
});
