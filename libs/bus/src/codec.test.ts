import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWork, DecodeError, decodeWork, encodeWork, workMessageId } from './codec.js';
import { deadLetterSubject, jobEventsSubject, WORK_QUEUE_NAMES, WORK_QUEUES } from './subjects.js';

test('work messages round-trip through protobuf', () => {
  const msg = createWork('files', { jobId: 'j1', path: 'src/a.ts', hash: 'abc', size: 3n });
  const back = decodeWork('files', encodeWork('files', msg));
  assert.equal(back.path, 'src/a.ts');
  assert.equal(back.size, 3n);
  assert.equal(workMessageId('files', msg), 'j1:src/a.ts:abc');
  assert.equal(
    workMessageId('deletes', createWork('deletes', { jobId: 'j1', path: 'x' })),
    'j1:x:deletes',
  );
});

test('garbage and messages without job or path fail with a decode reason', () => {
  assert.throws(
    () => decodeWork('files', new Uint8Array([0xff, 0xff, 0xff])),
    (err) => {
      assert.ok(err instanceof DecodeError);
      assert.match(err.message, /^decode: /);
      return true;
    },
  );
  const noJob = encodeWork('files', createWork('files', { path: 'a' }));
  assert.throws(() => decodeWork('files', noJob), /decode: missing job_id/);
});

test('each work queue has its own subject, stream and durable', () => {
  const defs = WORK_QUEUE_NAMES.map((q) => WORK_QUEUES[q]);
  for (const key of ['subject', 'stream', 'durable'] as const) {
    assert.equal(new Set(defs.map((d) => d[key])).size, defs.length, key);
  }
  assert.equal(jobEventsSubject('job-1'), 'codesift.events.job.job-1');
  assert.equal(deadLetterSubject('chunker'), 'codesift.deadletter.chunker');
  assert.throws(() => jobEventsSubject('a.b'), /not a valid subject token/);
  assert.throws(() => jobEventsSubject('*'), /not a valid subject token/);
});
