import { errorMessage, type IndexJobStatus } from '@codesift/core';
import { type IndexWatcher, watchIndex } from '@codesift/pipeline';

/** Loading the built-in model takes seconds: a watching server keeps it this long after a job. */
export const WATCH_KEEP_EMBEDDER_MS = 10 * 60_000;

/**
 * The watch `codesift mcp` and `codesift serve` run over their local index:
 * each batch of changes becomes one job of the server's own queue (`run`),
 * so it never races a job a client started, and a line on the log says
 * what it did.
 */
export function watchForServer(options: {
  root: string;
  indexPath: string;
  /** One job for these changed files (null: the whole tree). */
  run: (files: string[] | null) => Promise<IndexJobStatus>;
  log: (line: string) => void;
  /**
   * Gets the jobs ready for the first change (the chunker's grammars, see
   * LocalIndexJobs.warm); run in the background once the watch is up, so
   * neither the server's start nor its first requests wait for it.
   */
  warm?: () => Promise<string[]>;
}): Promise<IndexWatcher> {
  const { log } = options;
  return watchIndex({
    root: options.root,
    indexPath: options.indexPath,
    reindex: async ({ paths, files }) => {
      const end = await options.run(files);
      const more = paths.length > 3 ? ` and ${paths.length - 3} more` : '';
      const n = paths.length;
      log(
        `re-indexed ${n} changed path${n === 1 ? '' : 's'} (${paths.slice(0, 3).join(', ')}${more}): ` +
          `${end.filesChanged} new or changed, ${end.filesDeleted} deleted, ${end.failures} failed in ${end.elapsedSeconds.toFixed(2)}s`,
      );
      return undefined;
    },
    onBatch: (batch) => {
      if (batch.error) log(`re-indexing after a change failed: ${batch.error}`);
    },
    onError: (err) => log(`file watcher: ${errorMessage(err)}`),
  }).then((watcher) => {
    log(`watching ${options.root} for changes`);
    const warm = options.warm;
    if (warm) {
      const t0 = performance.now();
      setImmediate(() => {
        void warm().then((languages) => {
          if (languages.length === 0) return;
          const ms = Math.round(performance.now() - t0);
          log(`ready for edits: ${languages.join(', ')} chunking warmed in ${ms} ms`);
        });
      }).unref();
    }
    return watcher;
  });
}
