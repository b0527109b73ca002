import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSide } from './side-runner.js';

describe('runSide', () => {
  it('returns the value of a side that answers in time', async () => {
    const r = await runSide(async () => 42, { deadlineAt: performance.now() + 1000 });
    assert.equal(r.ok, true);
    assert.equal(r.ok && r.value, 42);
  });

  it('drops a side that throws, with its message', async () => {
    const r = await runSide(async () => {
      throw new Error('boom');
    }, {});
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'boom');
  });

  it('drops a side that misses the deadline and aborts its signal', async () => {
    let seen: AbortSignal | undefined;
    const t0 = performance.now();
    const r = await runSide(
      (signal) => {
        seen = signal;
        return new Promise<never>(() => {});
      },
      { deadlineAt: performance.now() + 30 },
    );
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'timeout');
    assert.ok(performance.now() - t0 < 500);
    assert.equal(seen?.aborted, true);
  });

  it("rejects when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const p = runSide(() => new Promise<never>(() => {}), { signal: controller.signal });
    controller.abort(new Error('cancelled by caller'));
    await assert.rejects(p, /cancelled by caller/);
  });
});
