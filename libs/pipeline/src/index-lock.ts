/**
 * One writer per local index: `<index>.lock` is created exclusively and
 * names its holder (pid, host, start time). A second indexer either waits
 * for it (the default: a watch or a queued job simply runs after) or is
 * refused with who holds it. A lock whose process is gone on this host (a
 * SIGKILLed run) is stale and taken over; a lock from another host is
 * never guessed stale, the message says which file to delete. The file
 * lives beside the index, not inside SQLite: SQLite's own locks cover one
 * transaction, while the lock here covers a whole run (a rebuild writes a
 * different file altogether).
 */
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CodesiftError } from '@codesift/core';

export interface LockHolder {
  pid: number;
  host: string;
  /** Epoch ms. */
  since: number;
}

export interface IndexLock {
  readonly file: string;
  release(): void;
}

export interface AcquireOptions {
  /** Refuse at once (INDEX_BUSY-style error) instead of waiting. Default false. */
  noWait?: boolean;
  /** Called once when the lock is held by another live process and this call starts waiting. */
  onWait?: (holder: LockHolder, lockFile: string) => void;
  signal?: AbortSignal;
  /** Between attempts while waiting; default 250 ms. */
  pollMs?: number;
}

export function lockFileOf(indexPath: string): string {
  return `${indexPath}.lock`;
}

/** Takes the index's write lock, waiting (or refusing) while another live indexer holds it. */
export async function acquireIndexLock(
  indexPath: string,
  options: AcquireOptions = {},
): Promise<IndexLock> {
  const file = lockFileOf(indexPath);
  let told = false;
  for (;;) {
    const lock = tryCreate(file);
    if (lock) return lock;
    const holder = readHolder(file);
    if (holder === undefined) continue; // released between our attempt and the read
    if (holder === null ? halfWrittenLongAgo(file) : isStale(holder)) {
      takeOverStale(file, holder);
      continue;
    }
    if (options.noWait) throw busy(indexPath, file, holder);
    if (!told && holder !== null) {
      told = true;
      options.onWait?.(holder, file);
    }
    if (options.signal?.aborted) {
      throw new CodesiftError(
        'INTERNAL',
        'indexing was cancelled while waiting for the index lock',
      );
    }
    await sleep(options.pollMs ?? 250, undefined, { signal: options.signal }).catch(() => {});
  }
}

export function describeHolder(holder: LockHolder): string {
  return `pid ${holder.pid} on ${holder.host} since ${new Date(holder.since).toISOString()}`;
}

function busy(indexPath: string, file: string, holder: LockHolder | null): CodesiftError {
  const who = holder ? describeHolder(holder) : 'another process';
  const remote = holder !== null && holder.host !== hostname();
  return new CodesiftError('BUSY', `index ${indexPath} is being written by ${who}`, {
    hint: remote
      ? `wait for it to finish; if that host's indexer is gone, delete ${file}`
      : 'wait for it to finish, or run again without --no-wait to wait for it',
  });
}

function tryCreate(file: string): IndexLock | null {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw err;
  }
  const me: LockHolder = { pid: process.pid, host: hostname(), since: Date.now() };
  try {
    writeSync(fd, `${JSON.stringify(me)}\n`);
  } finally {
    closeSync(fd);
  }
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      // Only our own lock: a lock taken over as stale (we were presumed dead) is not ours to remove.
      const now = readHolder(file);
      if (now && now.pid === me.pid && now.host === me.host && now.since === me.since) {
        rmSync(file, { force: true });
      }
    },
  };
}

/**
 * The holder named in the file; null when it cannot be parsed (a holder
 * killed between creating and writing it: treated as live until it is
 * older than a second, see isStale), undefined when the file is gone.
 */
function readHolder(file: string): LockHolder | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.since === 'number') {
      return { pid: h.pid, host: h.host, since: h.since };
    }
  } catch {
    // Half-written: see below.
  }
  return null;
}

/** A lock file still unparsable after a while: its creator died before writing it. */
function halfWrittenLongAgo(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > 2000;
  } catch {
    return false;
  }
}

function isStale(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes a stale lock without removing a fresh one another process
 * created meanwhile: the file is first renamed to a name of our own
 * (atomic), and if it turns out not to be the stale holder's, linked back
 * (link never replaces an existing file).
 */
function takeOverStale(file: string, stale: LockHolder | null): void {
  const mine = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, mine);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = readHolder(mine);
  const same =
    moved === stale ||
    (moved != null && stale !== null && moved.pid === stale.pid && moved.since === stale.since);
  if (!same) {
    try {
      linkSync(mine, file);
    } catch {
      // Someone else holds the lock now; the one we moved is lost, and its holder's release is a no-op.
    }
  }
  rmSync(mine, { force: true });
}
