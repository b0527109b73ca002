import { CodesiftError } from '@codesift/core';
import type { Embedder, EmbedOptions } from './embedder.js';

/** An embedder the pool can route by load. */
export interface PoolMember extends Embedder {
  /** Texts asked of it and not yet answered. */
  readonly load: number;
  /** Set once it can no longer embed (its thread died). */
  readonly failure: Error | undefined;
}

/**
 * Several single-threaded model workers behind one Embedder. Each call goes
 * whole to the member with the least work, so batches run side by side on
 * separate cores with no synchronisation inside a batch: one session with
 * two intra-op threads makes both wait for the slower at every operator,
 * which on a shared machine is whichever the scheduler left behind.
 */
export class EmbedderPool implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  readonly maxBatch: number;
  /** Every member busy, each with its own batches in flight. */
  readonly concurrency: number;

  constructor(private readonly members: PoolMember[]) {
    const first = members[0];
    if (!first) throw new CodesiftError('INTERNAL', 'an embedder pool needs a member');
    this.name = first.name;
    this.dimensions = first.dimensions;
    this.maxBatch = first.maxBatch;
    this.concurrency = members.reduce((n, m) => n + (m.concurrency ?? 1), 0);
  }

  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    const live = this.members.filter((m) => !m.failure);
    // All dead: the first member's embed() reports why.
    if (live.length === 0) return this.members[0]!.embed(texts, options);
    let pick = live[0]!;
    for (const m of live) if (m.load < pick.load) pick = m;
    return pick.embed(texts, options);
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
  }
}
