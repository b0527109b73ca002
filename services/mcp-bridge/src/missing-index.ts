import { CodesiftError, type IndexJobStatus } from '@codesift/core';
import type { SearchEngine } from '@codesift/search';

/**
 * The engine searches use while a directory has no index: every call fails
 * with INDEX_NOT_FOUND and a hint the agent can act on (index_codebase, or
 * wait for the job already under way).
 */
export function missingIndexEngine(
  root: string,
  activeJob: () => Promise<IndexJobStatus | undefined>,
): SearchEngine {
  const fail = async (): Promise<never> => {
    const job = await activeJob();
    throw new CodesiftError('INDEX_NOT_FOUND', `${root} is not indexed yet`, {
      hint: job
        ? `an index job is ${job.state} (${job.filesDone} of ${job.filesTotal} files); call index_status to follow it and try again when it finished`
        : `call the index_codebase tool to index it (or run \`codesift index ${root}\`)`,
    });
  };
  return {
    search: fail,
    lookupSymbol: fail,
    fileSymbols: fail,
    vocabulary: fail,
    status: fail,
    getSnippet: fail,
    close: async () => {},
  };
}

/** `engine` with a promise that resolves once it was closed. */
export function closeNotifying(engine: SearchEngine): {
  engine: SearchEngine;
  closed: Promise<void>;
} {
  let resolve!: () => void;
  const closed = new Promise<void>((r) => {
    resolve = r;
  });
  return {
    closed,
    engine: {
      search: (request) => engine.search(request),
      lookupSymbol: (name, options) => engine.lookupSymbol(name, options),
      ...(engine.fileSymbols ? { fileSymbols: (p: string) => engine.fileSymbols!(p) } : {}),
      vocabulary: (options) => engine.vocabulary(options),
      status: () => engine.status(),
      getSnippet: (p, start, end) => engine.getSnippet(p, start, end),
      async close() {
        try {
          await engine.close();
        } finally {
          resolve();
        }
      },
    },
  };
}
