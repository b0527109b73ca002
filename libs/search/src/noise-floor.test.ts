import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Embedder } from '@codesift/models';
import { measureNoiseFloor, NOISE_PROBES, NoiseFloorCache, noiseProbes } from './noise-floor.js';

describe('noise floor', () => {
  it('probes are word-shaped random letters, the same on every call', () => {
    const probes = noiseProbes();
    assert.equal(probes.length, NOISE_PROBES);
    assert.deepEqual(noiseProbes(), probes);
    assert.equal(new Set(probes).size, probes.length);
    for (const p of probes) assert.match(p, /^[a-z]{4,12}( [a-z]{4,12}){0,2}$/);
  });

  it('is the best top-1 similarity any probe reaches', async () => {
    const embedder = {
      embed: async (texts: string[]) => texts.map((_, i) => new Float32Array([i])),
    } as unknown as Embedder;
    const floor = await measureNoiseFloor(embedder, {
      search: async (q) => [{ id: 'x', path: 'x.ts', score: 0.3 + q.vector[0]! / 100 }],
    });
    assert.equal(floor, 0.3 + (NOISE_PROBES - 1) / 100);
    const empty = await measureNoiseFloor(embedder, { search: async () => [] });
    assert.equal(empty, null);
  });

  it('is measured once per index version, and again after a failure', async () => {
    const cache = new NoiseFloorCache();
    let calls = 0;
    const measure = async () => {
      calls++;
      return 0.5;
    };
    assert.equal(await cache.get(1, measure), 0.5);
    assert.equal(await cache.get(1, measure), 0.5);
    assert.equal(calls, 1);
    await cache.get(2, measure);
    assert.equal(calls, 2);
    const failing = () => Promise.reject(new Error('model gone'));
    await assert.rejects(cache.get(3, failing), /model gone/);
    assert.equal(await cache.get(3, measure), 0.5);
  });
});
