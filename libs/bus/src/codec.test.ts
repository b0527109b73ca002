import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toBinary } from '@bufbuild/protobuf';
import { FileChunksBatchSchema } from '@codesift/proto';
import {
  batchPaths,
  createWork,
  createWorkFile,
  DecodeError,
  decodeWork,
  encodedFileSize,
  encodeWork,
  workMessageId,
} from './codec.js';
import { deadLetterSubject, jobEventsSubject, WORK_QUEUE_NAMES, WORK_QUEUES } from './subjects.js';

test('work batches round-trip through protobuf', () => {
  const msg = createWork('files', {
    jobId: 'j1',
    files: [
      { path: 'src/a.ts', hash: 'abc', size: 3n },
      { path: 'src/b.ts', hash: 'def', size: 4n },
    ],
  });
  const back = decodeWork('files', encodeWork('files', msg));
  assert.equal(back.jobId, 'j1');
  assert.deepEqual(batchPaths(back), ['src/a.ts', 'src/b.ts']);
  assert.equal(back.files[1]?.size, 4n);
});

test('message ids depend on job, files and contents, not on the object', () => {
  const batch = (hash: string, jobId = 'j1') =>
    createWork('files', {
      jobId,
      files: [
        { path: 'a.ts', hash },
        { path: 'b.ts', hash: 'x' },
      ],
    });
  const id = workMessageId('files', batch('h1'));
  assert.match(id, /^j1:2:/);
  assert.equal(workMessageId('files', batch('h1')), id, 'deterministic');
  assert.notEqual(workMessageId('files', batch('h2')), id, 'content changes the id');
  assert.notEqual(workMessageId('files', batch('h1', 'j2')), workMessageId('files', batch('h1')));
  const one = createWork('files', { jobId: 'j1', files: [{ path: 'a.ts', hash: 'h1' }] });
  assert.notEqual(workMessageId('files', one), id, 'a part of a batch has its own id');
  const del = (paths: string[]) =>
    workMessageId(
      'deletes',
      createWork('deletes', { jobId: 'j1', files: paths.map((path) => ({ path })) }),
    );
  assert.notEqual(del(['x']), del(['y']));
});

test('encodedFileSize is what a file adds to its batch', () => {
  const files = [
    createWorkFile('chunks', { path: 'a.ts', chunks: [{ id: 'c', content: 'x'.repeat(300) }] }),
    createWorkFile('chunks', { path: 'b.ts', chunks: [{ id: 'd', content: 'y'.repeat(20_000) }] }),
  ];
  const empty = toBinary(FileChunksBatchSchema, createWork('chunks', { jobId: 'j1' })).length;
  const whole = encodeWork('chunks', createWork('chunks', { jobId: 'j1', files })).length;
  assert.equal(
    whole,
    empty + encodedFileSize('chunks', files[0]!) + encodedFileSize('chunks', files[1]!),
  );
});

test('garbage, batches without job, files or paths fail with a decode reason', () => {
  assert.throws(
    () => decodeWork('files', new Uint8Array([0xff, 0xff, 0xff])),
    (err) => {
      assert.ok(err instanceof DecodeError);
      assert.match(err.message, /^decode: /);
      return true;
    },
  );
  const enc = (init: Parameters<typeof createWork<'files'>>[1]) =>
    encodeWork('files', createWork('files', init));
  assert.throws(
    () => decodeWork('files', enc({ files: [{ path: 'a' }] })),
    /decode: missing job_id/,
  );
  assert.throws(() => decodeWork('files', enc({ jobId: 'j' })), /decode: batch without files/);
  assert.throws(
    () => decodeWork('files', enc({ jobId: 'j', files: [{ path: 'a' }, { hash: 'h' }] })),
    /decode: file without path/,
  );
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
