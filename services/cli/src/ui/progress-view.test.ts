import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IndexProgress } from '@codesift/pipeline';
import { lineProgress, ttyProgress } from './progress-view.js';

const indexing: IndexProgress = {
  phase: 'index',
  filesScanned: 10,
  filesToProcess: 4,
  filesProcessed: 1,
  chunks: 7,
  chunksPerSecond: 3,
  etaSeconds: 12,
  elapsedSeconds: 2,
};

function sink(isTTY: boolean) {
  const out: string[] = [];
  const stream = {
    isTTY,
    columns: 100,
    write(s: string) {
      out.push(s);
      return true;
    },
  };
  return { out, stream: stream as unknown as NodeJS.WriteStream };
}

test('on a terminal a notice stays above the live line, which is drawn again', () => {
  const { out, stream } = sink(true);
  const view = ttyProgress(stream);
  view.update(indexing);
  const live = out.at(-1)!.replace('\r\x1b[2K', '');
  assert.match(live, /1\/4 files · 7 chunks/);
  view.notice('no progress for 60 s');
  const written = out.at(-1)!;
  // Cleared, the notice on its own line, then the progress line again.
  assert.ok(written.startsWith('\r\x1b[2K'));
  const noticeEnd = written.indexOf('no progress for 60 s');
  assert.ok(
    noticeEnd > 0 && written.indexOf('\n', noticeEnd) > noticeEnd,
    'the notice ends its line',
  );
  assert.ok(written.endsWith(live), 'the live line is redrawn');
  view.done();
});

test('a notice before any progress line draws nothing else; in plain output it is a line', () => {
  const tty = sink(true);
  ttyProgress(tty.stream).notice('waiting');
  const drawn = tty.out.join('');
  assert.ok(drawn.includes('waiting') && drawn.endsWith('\n'), JSON.stringify(drawn));
  const plain = sink(false);
  const view = lineProgress(plain.stream);
  view.update(indexing);
  view.notice('no progress for 60 s');
  assert.deepEqual(plain.out, ['indexing 4 of 10 files\n', 'no progress for 60 s\n']);
});
