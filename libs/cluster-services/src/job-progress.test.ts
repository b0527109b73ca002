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

test('a batched FILES event counts each of its files, each by its own outcome', () => {
  const p = newJobProgress('j1');
  applyJobEvent(p, ev(JobEvent_Kind.JOB_PLANNED, '', { filesTotal: 4n }));
  applyJobEvent(
    p,
    ev(JobEvent_Kind.FILES, '', {
      files: [
        { path: 'a.ts', kind: JobEvent_Kind.FILE_DONE, chunks: 2n, symbols: 1n },
        { path: 'b.ts', kind: JobEvent_Kind.FILE_DONE, chunks: 3n },
        { path: 'c.ts', kind: JobEvent_Kind.FILE_FAILED, detail: 'chunk: bad' },
      ],
    }),
  );
  assert.equal(p.filesDone, 2);
  assert.equal(p.filesFailed, 1);
  assert.equal(p.chunks, 5);
  assert.equal(p.symbols, 1);
  assert.equal(p.failures.get('c.ts'), 'chunk: bad');
  assert.equal(isJobComplete(p), false);
  // The batch redelivered and reported again, and a whole-batch failure of
  // files already done: nothing counts twice.
  applyJobEvent(
    p,
    ev(JobEvent_Kind.FILES, '', {
      files: [
        { path: 'a.ts', kind: JobEvent_Kind.FILE_FAILED, detail: 'late' },
        { path: 'b.ts', kind: JobEvent_Kind.FILE_DONE, chunks: 3n },
      ],
    }),
  );
  assert.equal(p.filesDone + p.filesFailed, 3);
  assert.equal(p.chunks, 5);
  // Single-file events still count (the stages report a bad file alone).
  applyJobEvent(p, ev(JobEvent_Kind.FILE_DONE, 'd.ts', { chunks: 1n }));
  assert.equal(isJobComplete(p), true);
  assert.equal(p.chunks, 6);
});

test("the writer's context counts add up per job, a redelivered file once", () => {
  const p = newJobProgress('j1');
  const done = (path: string, fallback: bigint) => ({
    path,
    kind: JobEvent_Kind.FILE_DONE,
    chunks: 3n,
    contextSources: { llm: 3n - fallback, pattern: fallback },
    contextFallbacks: fallback > 0n ? { timeout: fallback } : {},
  });
  applyJobEvent(p, ev(JobEvent_Kind.FILES, '', { files: [done('a.ts', 0n), done('b.ts', 2n)] }));
  applyJobEvent(p, ev(JobEvent_Kind.FILES, '', { files: [done('b.ts', 2n), done('c.ts', 1n)] }));
  assert.deepEqual(p.contextSources, { llm: 6, pattern: 3 });
  assert.deepEqual(p.contextFallbacks, { timeout: 3 });
});

test("the chunker's notes are counted per language, a redelivered file once", () => {
  const p = newJobProgress('j1');
  const done = (path: string, language: string, note: Record<string, string> = {}) => ({
    path,
    kind: JobEvent_Kind.FILE_DONE,
    chunks: 1n,
    language,
    ...note,
  });
  const brace = 'brace recognizer: no grammar';
  applyJobEvent(
    p,
    ev(JobEvent_Kind.FILES, '', {
      files: [
        done('b.swift', 'swift', { structural: brace }),
        done('a.ts', 'typescript'),
        done('x.c', 'c', { noAst: 'the grammar failed to load' }),
      ],
    }),
  );
  applyJobEvent(
    p,
    ev(JobEvent_Kind.FILES, '', {
      files: [
        done('b.swift', 'swift', { structural: brace }),
        done('a.swift', 'swift', { structural: brace }),
      ],
    }),
  );
  assert.deepEqual(p.structural.toJSON(), {
    swift: { files: 2, reason: brace, paths: ['a.swift', 'b.swift'] },
  });
  assert.deepEqual(p.noAst.toJSON(), {
    c: { files: 1, reason: 'the grammar failed to load', paths: ['x.c'] },
  });
});

test('JOB_FAILED completes the job with its reason, whatever was planned', () => {
  const p = newJobProgress('j1');
  applyJobEvent(p, ev(JobEvent_Kind.JOB_PLANNED, '', { filesTotal: 3n }));
  applyJobEvent(p, ev(JobEvent_Kind.FILE_DONE, 'a.ts'));
  assert.equal(isJobComplete(p), false);
  applyJobEvent(p, ev(JobEvent_Kind.JOB_FAILED, '', { detail: 'root /x does not exist' }));
  assert.equal(isJobComplete(p), true);
  assert.equal(p.jobFailed, 'root /x does not exist');
  // A second report (a retry's) keeps the first reason.
  applyJobEvent(p, ev(JobEvent_Kind.JOB_FAILED, '', { detail: 'other' }));
  assert.equal(p.jobFailed, 'root /x does not exist');
});
