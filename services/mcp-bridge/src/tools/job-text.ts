import type { IndexJobStatus } from '@codesift/core';

/** One line about an index job, for progress messages and index_status. */
export function describeJob(s: IndexJobStatus): string {
  const files = s.filesTotal > 0 ? `${s.filesDone} of ${s.filesTotal} files` : 'counting files';
  const base = `${s.phase}: ${files}, ${s.chunks} chunks, ${s.elapsedSeconds.toFixed(1)}s`;
  return s.error ? `${base} (${s.error})` : base;
}
