import path from 'node:path';
import { createChunker } from '@codesift/chunking';
import { errorMessage } from '@codesift/core';
import { createEmbedderFromEnv, type Embedder } from '@codesift/models';
import {
  describeHolder,
  type IndexSummary,
  indexRepository,
  type WatchBatch,
  type WatchChange,
  warmChunker,
  watchIndex,
} from '@codesift/pipeline';
import { HELP_OPTION, type OptionSpecs, optionHelp, parseCommandLine } from '../command-line.js';
import { llmForIndex } from '../context-mode.js';
import { existingDirectory } from '../existing-directory.js';
import { indexFileFromOption, indexPathToWrite } from '../index-location.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import { formatCount, type Style, styleFor } from '../ui/format.js';
import { untilStopSignal } from '../until-signal.js';

export const DEFAULT_DEBOUNCE_MS = 100;

const OPTIONS = {
  index: {
    type: 'string',
    value: '<path>',
    help: 'index directory or .db file (default <dir>/.codesift, or the user cache when <dir> is read-only)',
  },
  'no-vectors': { type: 'boolean', help: 'keyword index only (no embedding model)' },
  ignore: {
    type: 'string',
    multiple: true,
    value: '<pattern>',
    help: 'extra gitignore-style pattern (repeatable); matching paths are neither indexed nor watched',
  },
  debounce: {
    type: 'string',
    value: '<ms>',
    help: `quiet time after the last change before re-indexing (default ${DEFAULT_DEBOUNCE_MS}); changes that keep coming wait at most 10 times as long`,
  },
  json: {
    type: 'boolean',
    help: 'print one JSON line per event on stdout: {"event":"watching",...}, {"event":"ready",...} once warmed, then {"event":"indexed",...} per run',
  },
  quiet: { type: 'boolean', short: 'q', help: 'log failures only' },
  ...HELP_OPTION,
} as const satisfies OptionSpecs;

export const help = `Usage: codesift watch [options] [dir]

Keeps the local index of <dir> (default: the working directory) fresh:
indexes it once (new and changed files only), then re-indexes whatever is
saved, added, deleted or renamed, shortly after it happens, until Ctrl-C.
Changes that arrive together (a branch switch, a formatter over the tree)
become one run. Paths the index leaves out (.gitignore, .codesiftignore,
--ignore, vendored and generated directories, .git, the index directory)
trigger nothing. A file that fails to index is reported and the watch goes
on.

Options:
${optionHelp(OPTIONS)}

codesift mcp and codesift serve watch their local index by themselves
(--no-watch turns that off). Searches mark hits whose file changed since it
was indexed as stale.

Environment: as codesift index (OLLAMA_HOST, CODESIFT_EMBED_MODEL, ...).
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError('watch takes at most one <dir>');
  const debounceMs = parseDebounce(values.debounce);
  const root = existingDirectory(
    path.resolve(io.cwd, positionals[0] ?? '.'),
    'codesift watch takes the root of a source tree (a directory)',
  );
  const indexPath = values.index
    ? indexFileFromOption(values.index, io.cwd)
    : indexPathToWrite(root, values.quiet, io);
  const vectors = !values['no-vectors'];
  const llm = llmForIndex(undefined, root, io.env);
  const log = watchLog(io, values.json, values.quiet);

  // Made once and kept: a saved file must not wait for a model or the grammars to load.
  const embedder: Embedder | undefined = vectors ? await createEmbedderFromEnv(io.env) : undefined;
  const chunker = await createChunker();
  const stop = new AbortController();
  const reindex = (change: WatchChange): Promise<IndexSummary> =>
    indexRepository({
      root,
      indexPath,
      vectors,
      embedder,
      chunker,
      llm,
      extraIgnore: values.ignore,
      signal: stop.signal,
      // Another indexer (a `codesift index` run) holds the index: this batch runs after it.
      onLockWait: (holder) =>
        values.quiet || io.stderr.write(`waiting for the indexer ${describeHolder(holder)}\n`),
      ...(change.files ? { only: change.files } : {}),
    });

  let first = true;
  const watcher = await watchIndex({
    root,
    indexPath,
    extraIgnore: values.ignore,
    reindex,
    debounceMs,
    maxWaitMs: debounceMs * 10,
    initialRun: true,
    onBatch: (batch) => {
      if (first) {
        first = false;
        log.caughtUp(batch, root, indexPath);
        // The grammars load on first use: warmed now, in the background, for
        // the index's languages, so the first saved file does not wait for
        // them. Not before: on a first run the index does not exist yet.
        const warmStart = performance.now();
        void warmChunker(chunker, root, indexPath).then((languages) => {
          if (languages.length > 0 && !stop.signal.aborted) {
            log.ready(languages, Math.round(performance.now() - warmStart));
          }
        });
      } else if (!stop.signal.aborted) {
        log.batch(batch);
      }
    },
    onError: (err) => log.error(watcherErrorText(err)),
  });
  try {
    const signal = await untilStopSignal();
    log.stopping(signal);
    stop.abort();
    await watcher.close();
  } finally {
    await embedder?.close();
  }
  return EXIT.ok;
}

function parseDebounce(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_DEBOUNCE_MS;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 60_000) {
    throw new UsageError(
      `--debounce must be a whole number of milliseconds up to 60000, got ${raw}`,
    );
  }
  return n;
}

/** The most common watcher failure on Linux gets the fix with it. */
function watcherErrorText(err: unknown): string {
  const code = (err as { code?: string }).code;
  const message = `file watcher: ${errorMessage(err)}`;
  return code === 'ENOSPC' || code === 'EMFILE'
    ? `${message} (the system's limit on watched directories is reached: raise fs.inotify.max_user_watches, or --ignore large directories)`
    : message;
}

/** What the watch reports, as text on stderr or JSON lines on stdout. */
function watchLog(io: CliIO, json: boolean, quiet: boolean) {
  const st = styleFor(io.stderr, io.env);
  const line = (text: string) => io.stderr.write(`${text}\n`);
  const emit = (event: Record<string, unknown>) => io.stdout.write(`${JSON.stringify(event)}\n`);
  return {
    caughtUp(batch: WatchBatch, root: string, indexPath: string) {
      const s = batch.summary;
      if (json) {
        emit({ event: 'watching', root, indexPath, ...batchJson(batch) });
        return;
      }
      if (batch.error) line(`${st.red('error:')} indexing ${root} failed: ${batch.error}`);
      else if (s && !quiet) {
        line(
          `${st.green('✔')} ${formatCount(s.totals.files)} file${s.totals.files === 1 ? '' : 's'} indexed (${changeText(s)}) in ${batch.seconds.toFixed(1)}s`,
        );
      }
      failures(batch, st, line);
      if (!quiet) line(`watching ${root} for changes (Ctrl-C stops)`);
    },
    batch(batch: WatchBatch) {
      if (json) {
        emit({ event: 'indexed', ...batchJson(batch) });
        return;
      }
      const time = new Date().toTimeString().slice(0, 8);
      const shown = batch.paths.slice(0, 3).join(', ');
      const more = batch.changes > 3 ? ` and ${formatCount(batch.changes - 3)} more` : '';
      if (batch.error) {
        line(`${st.dim(time)} ${shown}${more}: ${st.red('failed:')} ${batch.error}`);
      } else if (batch.summary && !quiet) {
        line(
          `${st.dim(time)} ${shown}${more}: ${changeText(batch.summary)} in ${batch.seconds.toFixed(2)}s`,
        );
      }
      failures(batch, st, line);
    },
    /** The warm-up is done: the first saved file of these languages does not wait for a grammar. */
    ready(languages: readonly string[], ms: number) {
      if (json) emit({ event: 'ready', languages, ms });
      else if (!quiet)
        line(st.dim(`ready for edits: ${languages.join(', ')} chunking warmed in ${ms} ms`));
    },
    error(text: string) {
      if (json) emit({ event: 'error', error: text });
      else line(`${st.yellow('warning:')} ${text}`);
    },
    stopping(signal: string) {
      if (!json && !quiet) line(`${signal}: stopping the watch`);
    },
  };
}

function changeText(s: IndexSummary): string {
  const parts = [
    `${formatCount(s.filesNew)} new`,
    `${formatCount(s.filesChanged)} changed`,
    `${formatCount(s.filesDeleted)} deleted`,
  ];
  if (s.filesFailed > 0) parts.push(`${formatCount(s.filesFailed)} failed`);
  return parts.join(', ');
}

function failures(batch: WatchBatch, st: Style, line: (text: string) => void): void {
  for (const f of batch.summary?.failures.slice(0, 10) ?? []) {
    line(st.yellow(`  warning: ${f.path}: ${f.reason}`));
  }
}

function batchJson(batch: WatchBatch): Record<string, unknown> {
  const s = batch.summary;
  return {
    paths: batch.paths,
    changes: batch.changes,
    seconds: batch.seconds,
    ...(batch.error ? { error: batch.error } : {}),
    ...(s
      ? {
          filesNew: s.filesNew,
          filesChanged: s.filesChanged,
          filesDeleted: s.filesDeleted,
          filesFailed: s.filesFailed,
          failures: s.failures,
          totals: s.totals,
        }
      : {}),
  };
}
