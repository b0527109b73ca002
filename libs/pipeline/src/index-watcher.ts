import type { Stats } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '@codesift/core';
import { PathFilter } from '@codesift/scanner';
import { type FSWatcher, watch } from 'chokidar';
import type { IndexSummary } from './progress.js';

export interface IndexWatchOptions {
  /** The indexed directory. */
  root: string;
  /** The index file: its directory is never watched, since the indexer writes there. */
  indexPath: string;
  /** As IndexOptions.extraIgnore: changes to paths these patterns leave out trigger nothing. */
  extraIgnore?: string[];
  /**
   * One incremental index run (plan against the manifest, changed files
   * only). `change.files` lists the files that changed when looking at those
   * alone is enough (IndexOptions.only); it is null when the whole tree must
   * be scanned: the initial run, a burst of more than MAX_NARROWED_PATHS
   * changes, or a changed ignore file. The watcher never starts a run before
   * the previous one settled.
   */
  reindex: (change: WatchChange) => Promise<IndexSummary | undefined>;
  /** Quiet time after the last change before a run starts; default 100 ms. */
  debounceMs?: number;
  /** The longest a change waits while changes keep coming; default 1000 ms. */
  maxWaitMs?: number;
  /** Run once as soon as the watch is ready, to catch up on changes made while nobody watched. */
  initialRun?: boolean;
  /** After each run, with what changed and what the run did or why it failed. */
  onBatch?: (batch: WatchBatch) => void;
  /** A file-system watcher error (e.g. out of inotify watches); the watch goes on. */
  onError?: (err: unknown) => void;
}

/** What a run is asked to index. */
export interface WatchChange {
  /** Every changed root-relative path, sorted; empty for the initial run. */
  paths: string[];
  /** The files to look at alone, or null to scan the whole tree. */
  files: string[] | null;
}

/** Above this many changes a run scans the tree rather than stat each file. */
export const MAX_NARROWED_PATHS = 1000;

/** One run of the watch. */
export interface WatchBatch {
  /** Changed root-relative paths, sorted, at most MAX_LISTED_PATHS; empty for the initial run. */
  paths: string[];
  /** How many paths changed in all. */
  changes: number;
  summary?: IndexSummary;
  /** Why the run failed; the watch goes on and the next change retries. */
  error?: string;
  /** Seconds from the run's start to its end. */
  seconds: number;
}

export interface IndexWatcher {
  /** Runs finished so far (failed ones included). */
  readonly runs: number;
  /** Resolves once no change is waiting and no run is under way. */
  settled(): Promise<void>;
  /** Stops watching and waits for a run under way. */
  close(): Promise<void>;
}

export const MAX_LISTED_PATHS = 50;

/**
 * Keeps a local index fresh: watches `root` (chokidar, fs.watch underneath,
 * so an idle watch costs no CPU) and, once changes stop for `debounceMs`,
 * runs the incremental indexer once for all of them. A branch switch that
 * touches thousands of files is one run, not thousands; a run does the
 * whole plan, so adds, edits, deletes and renames (an unlink and an add)
 * all land, and a change the watcher missed is still caught by the scan.
 *
 * What the scanner would leave out (ignore files, extra patterns, vendored
 * and generated directories, version control, the index directory) is not
 * watched at all, or is dropped by path before it can schedule a run. A
 * changed .gitignore or .codesiftignore restarts the watch with new rules.
 */
export async function watchIndex(options: IndexWatchOptions): Promise<IndexWatcher> {
  const watcher = new Watcher(options);
  await watcher.start();
  return watcher;
}

class Watcher implements IndexWatcher {
  runs = 0;
  private readonly root: string;
  private readonly filter: PathFilter;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  private fsw: FSWatcher | null = null;
  private readonly pending = new Set<string>();
  private firstPendingAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private rulesChanged = false;
  private closed = false;

  constructor(private readonly options: IndexWatchOptions) {
    this.root = path.resolve(options.root);
    this.filter = new PathFilter({
      root: this.root,
      excludeDirs: [path.dirname(path.resolve(options.indexPath))],
      extraIgnore: options.extraIgnore,
    });
    this.debounceMs = options.debounceMs ?? 100;
    this.maxWaitMs = Math.max(this.debounceMs, options.maxWaitMs ?? 1000);
  }

  async start(): Promise<void> {
    this.fsw = await this.open();
    if (this.options.initialRun) this.startRun([]);
  }

  private open(): Promise<FSWatcher> {
    const fsw = watch(this.root, {
      ignoreInitial: true,
      // Links are indexed through the scan; following them could watch outside the root.
      followSymlinks: false,
      ignored: (p: string, stats?: Stats) => this.ignoredByWatcher(p, stats),
    });
    fsw.on('all', (event, p) => this.onChange(event, p));
    fsw.on('error', (err) => this.options.onError?.(err));
    return new Promise((resolve) => fsw.once('ready', () => resolve(fsw)));
  }

  /** chokidar asks before it watches or reports a path; stats are absent on its first look. */
  private ignoredByWatcher(p: string, stats: Stats | undefined): boolean {
    const rel = this.filter.relative(p);
    if (rel === undefined) return true;
    if (PathFilter.isIgnoreFile(rel)) return false;
    const kind = stats === undefined ? 'unknown' : stats.isDirectory() ? 'directory' : 'file';
    return this.filter.ignores(rel, kind);
  }

  private onChange(event: string, p: string): void {
    if (this.closed) return;
    const rel = this.filter.relative(p);
    if (rel === undefined || rel === '') return;
    // chokidar reports a new directory's files and a removed one's, each as
    // its own add or unlink: the files are the changes.
    if (event === 'addDir' || event === 'unlinkDir') return;
    if (PathFilter.isIgnoreFile(rel)) {
      this.rulesChanged = true;
    } else if (this.filter.ignores(rel, 'file')) {
      return;
    }
    this.pending.add(rel);
    this.firstPendingAt ??= Date.now();
    clearTimeout(this.timer);
    const untilMax = this.firstPendingAt + this.maxWaitMs - Date.now();
    this.timer = setTimeout(() => this.flush(), Math.max(0, Math.min(this.debounceMs, untilMax)));
  }

  /** Starts a run for everything pending, unless one is under way (its end flushes again). */
  private flush(): void {
    this.timer = undefined;
    if (this.running || this.closed || this.pending.size === 0) return;
    const paths = [...this.pending].sort();
    this.pending.clear();
    this.firstPendingAt = undefined;
    this.startRun(paths);
  }

  private startRun(paths: string[]): void {
    this.running = this.run(paths).finally(() => {
      this.running = null;
      this.runs++;
      // Changes that came in during the run and whose timer already fired.
      if (this.timer === undefined) this.flush();
    });
  }

  private async run(paths: string[]): Promise<void> {
    const started = performance.now();
    const batch: WatchBatch = {
      paths: paths.slice(0, MAX_LISTED_PATHS),
      changes: paths.length,
      seconds: 0,
    };
    try {
      const whole = this.rulesChanged || paths.length === 0 || paths.length > MAX_NARROWED_PATHS;
      if (this.rulesChanged) await this.restart();
      const summary = await this.options.reindex({ paths, files: whole ? null : paths });
      if (summary) batch.summary = summary;
    } catch (err) {
      batch.error = errorMessage(err);
    }
    batch.seconds = Math.round(performance.now() - started) / 1000;
    try {
      this.options.onBatch?.(batch);
    } catch {
      // A failing observer must not stop the watch.
    }
  }

  /**
   * New ignore rules: directories the old ones pruned may now be wanted (or
   * the reverse), and chokidar decided what to watch with the old ones.
   */
  private async restart(): Promise<void> {
    this.rulesChanged = false;
    this.filter.reset();
    const old = this.fsw;
    this.fsw = null;
    await old?.close();
    if (!this.closed) this.fsw = await this.open();
  }

  async settled(): Promise<void> {
    while (!this.closed && (this.running || this.timer !== undefined || this.pending.size > 0)) {
      if (this.running) await this.running;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.fsw?.close();
    await this.running;
  }
}
