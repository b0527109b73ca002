/**
 * A server keeps its index open for its whole life. `codesift index
 * --rebuild` run beside it swaps a new file in under the same path (see
 * @codesift/stores replaceIndexFile); the open connections keep reading the
 * old, unlinked file. This poll notices the path now names another inode
 * and lets the server reopen, so its searches follow the rebuild within
 * `pollMs` instead of serving the old index until a restart.
 */
import { statSync } from 'node:fs';

export const FOLLOW_INDEX_POLL_MS = 2000;

/** Calls `onReplaced` each time `indexPath` names a different file than before; returns a stop function. */
export function followIndexFile(
  indexPath: string,
  onReplaced: () => void,
  pollMs = FOLLOW_INDEX_POLL_MS,
): () => void {
  const inode = (): number | null => {
    try {
      return statSync(indexPath).ino;
    } catch {
      return null;
    }
  };
  let seen = inode();
  const timer = setInterval(() => {
    const now = inode();
    // Missing for a moment (a clear, a move): wait for a file to appear.
    if (now === null || now === seen) return;
    seen = now;
    onReplaced();
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
