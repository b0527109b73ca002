import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { JobEvent_Kind, JobEventSchema } from '@codesift/proto';
import { applyJobEvent, isJobComplete, newJobProgress } from './job-progress.js';

const ev = (kind: JobEvent_Kind, path = '', extra: Record<string, unknown> = {}) =>
  create(JobEventSchema, { jobId: 'j1', kind, path, ...extra });

test('a job is complete when every planned file is done or failed, whatever the order', () => {
  const p = newJobProgress('j1');
  applyJobEvent(p, ev(JobEvent_Kind.FILE_DONE, 'a.ts', { chunks: 3n, symbols: 2n }));
  assert.equal(isJobComplete(p), false, 'not before the plan is known');
  applyJobEvent(p, ev(JobEvent_Kind.JOB_PLANNED, '', { filesTotal: 2n }));
  assert.equal(isJobComplete(p), false);
  applyJobEvent(p, ev(JobEvent_Kind.FILE_FAILED, 'b.ts', { detail: 'handler: boom' }));
  assert.equal(isJobComplete(p), true);
  assert.equal(p.filesDone, 1);
  assert.equal(p.filesFailed, 1);
  assert.equal(p.chunks, 3);
  assert.equal(p.symbols, 2);
  assert.equal(p.failures.get('b.ts'), 'handler: boom');
});

test('a file reported twice (a redelivery) counts once', () => {
  const p = newJobProgress('j1');
  applyJobEvent(p, ev(JobEvent_Kind.JOB_PLANNED, '', { filesTotal: 2n }));
  applyJobEvent(p, ev(JobEvent_Kind.FILE_DONE, 'a.ts', { chunks: 3n }));
  applyJobEvent(p, ev(JobEvent_Kind.FILE_DONE, 'a.ts', { chunks: 3n }));
  assert.equal(p.filesDone, 1);
  assert.equal(p.chunks, 3);
  assert.equal(isJobComplete(p), false);
});
