// The contextualizer's cache of LLM contexts in the cluster: the shared
// JetStream bucket BUCKETS.contexts, under the same keys as the local
// contexts.db (contextCacheKey). Every replica reads and writes it, so a
// chunk one replica asked about is never asked about again by another.
import type { KV } from '@codesift/bus';
import type { ContextCache } from '@codesift/context';
import type { Logger } from '@codesift/service-kit';

/**
 * A cache that never fails a chunk: a bucket that cannot answer is a miss
 * (the model is asked), one that cannot store drops the answer (it is asked
 * again next time). Either is logged once per kind, not once per chunk.
 */
export function createKvContextCache(kv: KV, log: Logger): ContextCache {
  const warned = new Set<string>();
  const warn = (what: string, err: unknown) => {
    if (warned.has(what)) return;
    warned.add(what);
    log.warn(`context cache ${what} failed; going on without it`, { error: err });
  };
  const decoder = new TextDecoder();
  return {
    async get(key) {
      try {
        const entry = await kv.get(key);
        // A deleted or purged key reads as an entry with an empty value.
        if (entry?.operation !== 'PUT' || entry.length === 0) return undefined;
        return decoder.decode(entry.value);
      } catch (err) {
        warn('read', err);
        return undefined;
      }
    },
    async put(key, context) {
      try {
        await kv.put(key, context);
      } catch (err) {
        warn('write', err);
      }
    },
    async size() {
      return (await kv.status()).values;
    },
    // The bucket belongs to the NATS connection, which the stage's runner closes.
    close() {},
  };
}
