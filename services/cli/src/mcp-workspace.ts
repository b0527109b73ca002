import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError, errorMessage, type IndexJobStatus } from '@codesift/core';
import { type LocalWorkspace, openLocalWorkspace } from '@codesift/mcp-bridge';
import { createEmbedderFromEnv, embedderNameFromEnv } from '@codesift/models';
import { createLocalIndexJobs, DEFAULT_INDEX_DIR } from '@codesift/pipeline';
import { openLocalEngine } from '@codesift/search';
import { openSqliteIndex } from '@codesift/stores';
import { findIndexUpwards, indexFileFromOption, indexPlaceFor } from './index-location.js';
import type { CliIO } from './io.js';
import { WATCH_KEEP_EMBEDDER_MS, watchForServer } from './server-watch.js';

/**
 * The directory `codesift mcp` serves and its index file, which need not
 * exist yet: --root and --index when given; else the nearest index in the
 * working directory or its parents; else the working directory itself, to
 * be indexed by index_codebase or --auto-index. An index not given by
 * --index is in the tree, or in the user cache when the tree is read-only.
 */
export function resolveServedIndex(
  options: { index?: string; root?: string },
  io: CliIO,
): { root: string; indexPath: string } {
  const root = options.root === undefined ? undefined : checkedRoot(options.root, io.cwd);
  if (options.index) {
    const indexPath = indexFileFromOption(options.index, io.cwd);
    return { root: root ?? recordedRoot(indexPath) ?? guessedRoot(indexPath, io.cwd), indexPath };
  }
  if (root) return { root, indexPath: indexPlaceFor(root, io.env).indexPath };
  const found = findIndexUpwards(io.cwd, io.env);
  if (found) return { root: recordedRoot(found) ?? guessedRoot(found, io.cwd), indexPath: found };
  return { root: path.resolve(io.cwd), indexPath: indexPlaceFor(io.cwd, io.env).indexPath };
}

/** A `--root` of `codesift mcp`: `dir`, or `name=dir` to name it for the `repository` argument. */
export interface RootOption {
  name?: string;
  dir: string;
}

/**
 * Splits `name=dir`. A value that is itself an existing path stays a
 * directory, so a directory whose name holds '=' can still be served.
 */
export function parseRootOption(value: string, cwd: string): RootOption {
  const eq = value.indexOf('=');
  if (eq > 0 && !existsSync(path.resolve(cwd, value))) {
    return { name: value.slice(0, eq), dir: value.slice(eq + 1) };
  }
  return { dir: value };
}

/**
 * The name a root is selected by when --root gave none: its directory's
 * name, with characters a name cannot hold replaced by '-'.
 */
export function repositoryNameOf(root: string): string {
  return path.basename(root).replace(/[^A-Za-z0-9._-]/g, '-') || 'root';
}

/**
 * Opens the workspace: the engine (when indexed), the index jobs of `root`,
 * and unless `watch` is false a watch that keeps the index fresh once it
 * exists (server-watch.ts), its chunker warmed for the index's languages.
 */
export function openMcpWorkspace(
  served: { root: string; indexPath: string },
  options: { keywordOnly: boolean; watch: boolean; log: (line: string) => void },
  io: CliIO,
): Promise<LocalWorkspace> {
  const vectors = !options.keywordOnly;
  const jobs = createLocalIndexJobs({
    root: served.root,
    indexPath: served.indexPath,
    ...(vectors ? { embedderFactory: () => createEmbedderFromEnv(io.env) } : {}),
    ...(options.watch ? { keepEmbedderMs: WATCH_KEEP_EMBEDDER_MS } : {}),
  });
  return openLocalWorkspace({
    ...served,
    open: () =>
      openLocalEngine({
        indexPath: served.indexPath,
        env: io.env,
        embedder: options.keywordOnly ? null : undefined,
        preloadModel: true,
        longTextWorker: true,
      }),
    jobs,
    vectors,
    embedder: vectors ? embedderNameFromEnv(io.env) : null,
    log: options.log,
    ...(options.watch
      ? {
          watch: (reindex: (files: string[] | null) => Promise<IndexJobStatus>) =>
            watchForServer({
              ...served,
              run: reindex,
              log: options.log,
              warm: () => jobs.warm(),
            }),
        }
      : {}),
  });
}

function checkedRoot(option: string, cwd: string): string {
  const root = path.resolve(cwd, option);
  if (!existsSync(root)) {
    throw new CodesiftError('ENOENT_ROOT', `directory not found: ${root}`, {
      hint: '--root names the directory to serve and index',
    });
  }
  if (!statSync(root).isDirectory()) {
    throw new CodesiftError('NOT_A_DIRECTORY', `not a directory: ${root}`, {
      hint: '--root names a directory, not a file',
    });
  }
  return root;
}

/** The root the indexer recorded in an existing index, else null. */
function recordedRoot(indexPath: string): string | null {
  if (!existsSync(indexPath)) return null;
  try {
    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      return index.meta().root;
    } finally {
      index.close();
    }
  } catch (err) {
    // Opening the engine reports a broken index properly; here it only lacks a root.
    if (err instanceof CodesiftError) return null;
    throw new CodesiftError('INDEX_CORRUPT', `cannot read ${indexPath}: ${errorMessage(err)}`);
  }
}

/** For an index not built yet: the directory holding `.codesift/`, else the working directory. */
function guessedRoot(indexPath: string, cwd: string): string {
  const dir = path.dirname(indexPath);
  return path.basename(dir) === DEFAULT_INDEX_DIR ? path.dirname(dir) : path.resolve(cwd);
}
