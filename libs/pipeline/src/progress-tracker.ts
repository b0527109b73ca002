import type { IndexPhase, IndexProgress } from './progress.js';

const PROGRESS_EVERY_MS = 100;

/**
 * Holds the running job's progress and hands snapshots to the listener,
 * throttled: the runner updates counts per file, displays need a few frames
 * a second at most. Rates and the ETA cover the index phase only, so a slow
 * scan does not distort them.
 */
export class ProgressTracker {
  readonly progress: IndexProgress = {
    phase: 'open',
    filesScanned: 0,
    filesToProcess: 0,
    filesProcessed: 0,
    chunks: 0,
    chunksPerSecond: 0,
    etaSeconds: null,
    elapsedSeconds: 0,
  };
  private lastEmit = 0;
  private indexStarted = 0;

  constructor(
    private readonly started: number,
    private readonly listener: ((p: IndexProgress) => void) | undefined,
  ) {}

  /** Enters a phase and always reports it. */
  phase(phase: IndexPhase): void {
    this.progress.phase = phase;
    if (phase === 'index') this.indexStarted = performance.now();
    this.emit(true);
  }

  /** Seconds since the index phase began (0 before it). */
  indexSeconds(): number {
    return this.indexStarted > 0 ? (performance.now() - this.indexStarted) / 1000 : 0;
  }

  emit(force = false): void {
    if (!this.listener) return;
    const now = performance.now();
    if (!force && now - this.lastEmit < PROGRESS_EVERY_MS) return;
    this.lastEmit = now;
    const p = this.progress;
    p.elapsedSeconds = (now - this.started) / 1000;
    if (p.phase === 'index' && this.indexStarted > 0) {
      const secs = (now - this.indexStarted) / 1000;
      p.chunksPerSecond = secs > 0 ? p.chunks / secs : 0;
      const rate = secs > 0 ? p.filesProcessed / secs : 0;
      p.etaSeconds =
        rate > 0 && p.filesProcessed > 0 ? (p.filesToProcess - p.filesProcessed) / rate : null;
    }
    this.listener({ ...p });
  }
}
