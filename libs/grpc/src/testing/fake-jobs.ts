import { queuedJobStatus } from '@codesift/core';
import type { IndexJobStatus, IndexJobs, StartIndexJobRequest } from '../index-jobs.js';

/** An IndexJobs whose jobs advance only when the test calls `advance`. */
export interface FakeJobs extends IndexJobs {
  starts: StartIndexJobRequest[];
  advance(jobId: string, change: Partial<IndexJobStatus>): void;
}

export function fakeJobs(): FakeJobs {
  const jobs = new Map<string, IndexJobStatus>();
  const listeners = new Map<string, Set<() => void>>();
  let n = 0;
  let last: string | undefined;
  const fake: FakeJobs = {
    starts: [],
    async start(request) {
      fake.starts.push(request);
      const jobId = `job-${++n}`;
      last = jobId;
      jobs.set(jobId, queuedJobStatus(jobId, request.root ?? '/repo'));
      return { ...jobs.get(jobId)! };
    },
    get: (jobId) => (jobs.has(jobId) ? { ...jobs.get(jobId)! } : undefined),
    latest: () => (last ? { ...jobs.get(last)! } : undefined),
    advance(jobId, change) {
      Object.assign(jobs.get(jobId)!, change);
      for (const l of listeners.get(jobId) ?? []) l();
    },
    async *watch(jobId, options = {}) {
      let pending = true;
      const wake = new Set<() => void>();
      const onChange = () => {
        pending = true;
        for (const w of wake) w();
      };
      if (!listeners.has(jobId)) listeners.set(jobId, new Set());
      listeners.get(jobId)!.add(onChange);
      try {
        while (!options.signal?.aborted) {
          if (pending) {
            pending = false;
            const s = { ...jobs.get(jobId)! };
            yield s;
            if (s.state === 'succeeded' || s.state === 'failed') return;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake.add(resolve);
            options.signal?.addEventListener('abort', () => resolve(), { once: true });
          });
          wake.clear();
        }
      } finally {
        listeners.get(jobId)!.delete(onChange);
      }
    },
  };
  return fake;
}
