// A scripted engine for the pool's tests, opened inside worker threads by
// the factory { module: <this file>, exportName: 'openTestEngine' }. Queries
// steer it: 'wait' runs until aborted, 'crash' ends the thread, 'bad' throws
// a CodesiftError, anything else answers with the thread's id.
import { threadId } from 'node:worker_threads';
import { CodesiftError } from '@codesift/core';
import type { SearchEngine, SearchResponse } from '@codesift/search';

export async function openTestEngine(options: { failOpen?: boolean }): Promise<SearchEngine> {
  if (options.failOpen) {
    throw new CodesiftError('INDEX_NOT_FOUND', 'no index here', { hint: 'index first' });
  }
  const unused = () => Promise.reject(new Error('not used by the pool'));
  return {
    async search(request) {
      if (request.query === 'crash') process.exit(3);
      if (request.query === 'bad') throw new CodesiftError('INVALID_ARGUMENT', 'bad query');
      if (request.query === 'wait') {
        await new Promise((_, reject) => {
          request.signal?.addEventListener('abort', () => reject(request.signal?.reason), {
            once: true,
          });
        });
      }
      if (request.query.startsWith('sleep ')) {
        await new Promise((r) => setTimeout(r, Number(request.query.slice(6))));
      }
      const response: SearchResponse = {
        query: request.query,
        results: [],
        fusion: 'linear',
        timings: { thread: threadId },
      } as unknown as SearchResponse;
      return response;
    },
    lookupSymbol: unused,
    vocabulary: unused,
    status: unused,
    getSnippet: unused,
    close: async () => undefined,
  };
}
