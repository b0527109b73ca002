// The writer's optimize timing on a mocked clock (setTimeout and Date move
// only when the test ticks them): once after a burst goes quiet, spaced
// apart while writes keep coming, retried after a failure, flushed at close.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { createLogger } from '@codesift/service-kit';
import { createOptimizeScheduler, type OptimizeSchedulerOptions } from './optimize-scheduler.js';

const quiet = createLogger('test', { write: () => undefined });

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

async function tick(ms: number): Promise<void> {
  mock.timers.tick(ms);
  // Let the optimize the timer started settle.
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function scheduler(opts: Partial<OptimizeSchedulerOptions>, fail = () => false) {
  const calls: number[] = [];
  const s = createOptimizeScheduler(
    async () => {
      calls.push(Date.now());
      if (fail()) throw new Error('disk busy');
    },
    { idleMs: 100, log: quiet, now: () => Date.now(), ...opts },
  );
  return { s, calls };
}

test('a burst of writes is optimized once, after the writes go quiet', async () => {
  const { s, calls } = scheduler({ idleMs: 100, spacingMs: 0 });
  for (let i = 0; i < 5; i++) {
    s.wrote();
    await tick(50);
  }
  assert.deepEqual(calls, [], 'not while writes keep coming');
  await tick(50);
  assert.deepEqual(calls, [300], 'idle time after the last write (at 200)');
  await tick(1000);
  assert.equal(calls.length, 1, 'nothing written since: no second optimize');
});

test('optimizations are spaced apart even when every gap is long enough', async () => {
  const { s, calls } = scheduler({ idleMs: 100, spacingMs: 1000 });
  s.wrote();
  await tick(100);
  assert.deepEqual(calls, [100]);
  s.wrote();
  await tick(200);
  assert.equal(calls.length, 1, 'the second waits for the spacing');
  await tick(800);
  assert.deepEqual(calls, [100, 1100], 'the spacing after the first');
});

test('a failed optimize is retried by the flush; a flush with nothing written does nothing', async () => {
  let failing = true;
  const { s, calls } = scheduler({ idleMs: 100, spacingMs: 0 }, () => failing);
  await s.flush();
  assert.equal(calls.length, 0);
  s.wrote();
  await tick(100);
  assert.equal(calls.length, 1);
  failing = false;
  await s.flush();
  assert.equal(calls.length, 2, 'still dirty after the failure');
  await s.flush();
  assert.equal(calls.length, 2);
});

test('the flush at close runs the pending optimize at once', async () => {
  const { s, calls } = scheduler({ idleMs: 60_000 });
  s.wrote();
  await s.flush();
  assert.equal(calls.length, 1);
  await tick(60_000);
  assert.equal(calls.length, 1, 'the cancelled timer does not run it again');
});
