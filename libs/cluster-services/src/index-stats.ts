// The index-stats service: the writer says what its index holds (counts,
// embedder, where it lives), so a client that cannot open the index (a
// remote `codesift index --remote`, on another machine or against
// Elasticsearch + Qdrant) can still print the same summary as local mode.
import { type Responder, requestService, type ServeOptions, serveRequests } from '@codesift/bus';
import type { IndexMeta, IndexStats } from '@codesift/stores';
import type { NatsConnection } from '@nats-io/transport-node';

/** What the writer offers the service. */
export interface IndexStatsSource {
  readonly location: string;
  stats(): Promise<IndexStats>;
  meta(): Promise<IndexMeta>;
}

export interface RemoteIndexStats extends IndexStats {
  embedder: string | null;
  dimensions: number | null;
  location: string;
  root: string | null;
}

export function serveIndexStats(
  nc: NatsConnection,
  source: IndexStatsSource,
  opts: ServeOptions = {},
): Responder {
  return serveRequests(
    nc,
    'indexStats',
    async () => {
      const [stats, meta] = await Promise.all([source.stats(), source.meta()]);
      return {
        files: BigInt(stats.files),
        chunks: BigInt(stats.chunks),
        symbols: BigInt(stats.symbols),
        vectors: BigInt(stats.vectors),
        bytes: BigInt(stats.bytes),
        embedder: meta.embedder ?? '',
        dimensions: meta.dimensions ?? 0,
        location: source.location,
        root: meta.root ?? '',
      };
    },
    opts,
  );
}

/** Asks the writer; UNAVAILABLE when no writer answers, TIMEOUT when it is too slow. */
export async function fetchIndexStats(
  nc: NatsConnection,
  opts: { timeoutMs?: number } = {},
): Promise<RemoteIndexStats> {
  const r = await requestService(nc, 'indexStats', {}, { timeoutMs: opts.timeoutMs ?? 10_000 });
  return {
    files: Number(r.files),
    chunks: Number(r.chunks),
    symbols: Number(r.symbols),
    vectors: Number(r.vectors),
    bytes: Number(r.bytes),
    embedder: r.embedder || null,
    dimensions: r.dimensions || null,
    location: r.location,
    root: r.root || null,
  };
}
