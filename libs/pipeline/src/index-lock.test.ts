import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { acquireIndexLock, lockFileOf } from './index-lock.js';

describe('index lock', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-lock-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const indexPath = (name: string) => path.join(dir, `${name}.db`);

  test('names its holder, refuses a second taker with --no-wait, and is removed on release', async () => {
    const file = indexPath('a');
    const lock = await acquireIndexLock(file);
    const holder = JSON.parse(readFileSync(lockFileOf(file), 'utf8'));
    assert.equal(holder.pid, process.pid);
    assert.equal(holder.host, hostname());
    await assert.rejects(acquireIndexLock(file, { noWait: true }), (err: Error) => {
      assert.match(err.message, new RegExp(`being written by pid ${process.pid} on `));
      return true;
    });
    lock.release();
    assert.equal(existsSync(lockFileOf(file)), false);
  });

  test('a waiting taker is told once, then gets the lock when it is released', async () => {
    const file = indexPath('b');
    const first = await acquireIndexLock(file);
    const told: number[] = [];
    const second = acquireIndexLock(file, { pollMs: 20, onWait: (h) => told.push(h.pid) });
    await new Promise((r) => setTimeout(r, 100));
    first.release();
    const lock = await second;
    assert.deepEqual(told, [process.pid]);
    lock.release();
  });

  test('a lock whose process is gone is taken over; another host is never guessed stale', async () => {
    const file = indexPath('c');
    // A pid that existed and exited: certainly not running now.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(lockFileOf(file), JSON.stringify({ pid: dead, host: hostname(), since: 1 }));
    const lock = await acquireIndexLock(file, { noWait: true });
    assert.equal(JSON.parse(readFileSync(lockFileOf(file), 'utf8')).pid, process.pid);
    lock.release();

    writeFileSync(lockFileOf(file), JSON.stringify({ pid: dead, host: 'elsewhere', since: 1 }));
    await assert.rejects(acquireIndexLock(file, { noWait: true }), (err: Error) => {
      assert.match(err.message, /on elsewhere/);
      assert.match(String((err as { hint?: string }).hint), /delete .*\.lock/);
      return true;
    });
    rmSync(lockFileOf(file));
  });

  test('a lock file left half-written is stale after a while, not at once', async () => {
    const file = indexPath('d');
    writeFileSync(lockFileOf(file), '');
    await assert.rejects(acquireIndexLock(file, { noWait: true }));
    const old = new Date(Date.now() - 10_000);
    utimesSync(lockFileOf(file), old, old);
    const lock = await acquireIndexLock(file, { noWait: true });
    lock.release();
  });
});
