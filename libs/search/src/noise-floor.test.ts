import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Embedder } from '@codesift/models';
import { measureNoise, NOISE_PROBES, NoiseFloorCache, noiseProbes } from './noise-floor.js';
import { CONTRAST_RANK } from './vector-contrast.js';

describe('noise floor', () => {
  it('probes are word-shaped random letters, the same on every call', () => {
    const probes = noiseProbes();
    assert.equal(probes.length, NOISE_PROBES);
    assert.deepEqual(noiseProbes(), probes);
    assert.equal(new Set(probes).size, probes.length);
    for (const p of probes) assert.match(p, /^[a-z]{4,12}( [a-z]{4,12}){0,2}$/);
  });

  it('floor: the best top-1 similarity any probe reaches; contrast: the median drop to rank 10', async () => {
    // Probe i embeds to [i]; its hits fall from 0.3 + i/100 by 0.01 * (1 + i % 3) per rank,
    // so its contrast (top minus rank 10) is 0.09, 0.18 or 0.27 by i % 3.
    const embedder = {
      embed: async (texts: string[]) => texts.map((_, i) => new Float32Array([i])),
    } as unknown as Embedder;
    let asked = 0;
    const profile = await measureNoise(embedder, {
      search: async (q: { vector: Float32Array; limit: number }) => {
        asked = q.limit;
        const i = q.vector[0]!;
        return Array.from({ length: q.limit }, (_, r) => ({
          id: `c${r}`,
          path: 'x.ts',
          score: 0.3 + i / 100 - r * 0.01 * (1 + (i % 3)),
        }));
      },
    });
    assert.equal(asked, CONTRAST_RANK);
    assert.equal(profile!.floor, 0.3 + (NOISE_PROBES - 1) / 100);
    // 16 probes: six at 0.09, five at 0.18, five at 0.27; the median (8th and 9th) is 0.18.
    assert.equal(Math.round(profile!.contrast! * 1e6) / 1e6, 0.18);
    assert.equal(await measureNoise(embedder, { search: async () => [] }), null);
    // One hit per probe: a floor, but no contrast to measure.
    const single = await measureNoise(embedder, {
      search: async () => [{ id: 'x', path: 'x.ts', score: 0.4 }],
    });
    assert.deepEqual(single, { floor: 0.4, contrast: null });
  });

  it('is measured once per index version, and again after a failure', async () => {
    const cache = new NoiseFloorCache();
    let calls = 0;
    const measure = async () => {
      calls++;
      return { floor: 0.5, contrast: 0.04 };
    };
    assert.equal((await cache.get(1, measure))!.floor, 0.5);
    assert.equal((await cache.get(1, measure))!.floor, 0.5);
    assert.equal(calls, 1);
    await cache.get(2, measure);
    assert.equal(calls, 2);
    const failing = () => Promise.reject(new Error('model gone'));
    await assert.rejects(cache.get(3, failing), /model gone/);
    assert.equal((await cache.get(3, measure))!.floor, 0.5);
  });
});
