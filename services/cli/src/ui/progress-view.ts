import type { IndexProgress } from '@codesift/pipeline';
import { formatCount, formatDuration, styleFor } from './format.js';

export interface ProgressView {
  update(p: IndexProgress): void;
  /** A line that stays (a warning) above the live progress. */
  notice(text: string): void;
  /** Clears the live line (TTY) so the summary prints cleanly. */
  done(): void;
}

const PHASE_LABEL: Record<IndexProgress['phase'], string> = {
  open: 'opening index',
  scan: 'scanning files',
  plan: 'comparing with the index',
  index: 'indexing',
  finish: 'finishing',
  done: 'done',
};

/** One redrawn line with a bar on a TTY. */
export function ttyProgress(stream: NodeJS.WriteStream): ProgressView {
  const style = styleFor(stream);
  let drawn = false;
  let last = '';
  return {
    notice(text) {
      stream.write(`\r\x1b[2K${style.yellow(text)}\n${drawn ? last : ''}`);
    },
    update(p) {
      const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 70));
      let line: string;
      if (p.phase === 'index' && p.filesToProcess > 0) {
        const frac = Math.min(1, p.filesProcessed / p.filesToProcess);
        const filled = Math.round(frac * width);
        const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
        line = `${style.cyan(bar)} ${formatCount(p.filesProcessed)}/${formatCount(p.filesToProcess)} files · ${formatCount(p.chunks)} chunks · ${formatCount(p.chunksPerSecond)} chunks/s · ETA ${p.etaSeconds === null ? '--:--' : formatDuration(p.etaSeconds)}`;
      } else {
        line = `${style.dim(PHASE_LABEL[p.phase])}${p.filesScanned ? ` · ${formatCount(p.filesScanned)} files found` : ''}`;
      }
      stream.write(`\r\x1b[2K${line}`);
      last = line;
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

/** Plain lines for logs and pipes: each phase once, then a line every few seconds. */
export function lineProgress(stream: NodeJS.WritableStream, everyMs = 5000): ProgressView {
  let lastPhase: string | null = null;
  let lastLine = 0;
  return {
    notice(text) {
      stream.write(`${text}\n`);
    },
    update(p) {
      const now = Date.now();
      if (p.phase !== lastPhase) {
        lastPhase = p.phase;
        lastLine = now;
        if (p.phase === 'index') {
          stream.write(
            `indexing ${formatCount(p.filesToProcess)} of ${formatCount(p.filesScanned)} files\n`,
          );
        } else if (p.phase !== 'done') {
          stream.write(`${PHASE_LABEL[p.phase]}\n`);
        }
        return;
      }
      if (p.phase === 'index' && now - lastLine >= everyMs) {
        lastLine = now;
        stream.write(
          `  ${formatCount(p.filesProcessed)}/${formatCount(p.filesToProcess)} files, ${formatCount(p.chunks)} chunks, ${formatCount(p.chunksPerSecond)} chunks/s, ETA ${p.etaSeconds === null ? '--:--' : formatDuration(p.etaSeconds)}\n`,
        );
      }
    },
    done() {},
  };
}

export function silentProgress(): ProgressView {
  return { update() {}, notice() {}, done() {} };
}
