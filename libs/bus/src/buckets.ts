// The cluster's JetStream key-value buckets, declared as data beside the
// work queues (subjects.ts) and the services (services.ts). A bucket is
// shared by every replica of the stages that open it, which is what lets a
// cache by content serve the whole cluster instead of one process.
import { type JetStreamClient, StorageType } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';

export interface BucketDef {
  /** Bucket name (the stream is `KV_<bucket>`). */
  readonly bucket: string;
  readonly description: string;
  /** Values kept per key: 1, the latest. */
  readonly history: number;
  /** How long an entry lives after its last write; 0 keeps it. */
  readonly ttlMs: number;
  /** Largest value accepted, in bytes. */
  readonly maxValueBytes: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const BUCKETS = {
  /**
   * LLM contexts by @codesift/context's contextCacheKey (chunk path and
   * content, model, prompt version): the cluster's counterpart of the local
   * contexts.db. Entries expire after 90 days unrewritten, so contexts of
   * code long gone do not pile up forever.
   */
  contexts: {
    bucket: 'codesift-contexts',
    description: 'codesift LLM chunk contexts by content, model and prompt version',
    history: 1,
    ttlMs: 90 * DAY_MS,
    maxValueBytes: 16 * 1024,
  },
} as const satisfies Record<string, BucketDef>;

export type BucketName = keyof typeof BUCKETS;

/**
 * Opens `name`'s bucket, creating it on first use. Replicas racing each
 * other all succeed: creating a stream that exists with the same
 * configuration is not an error.
 */
export async function openBucket(
  js: JetStreamClient,
  name: BucketName,
  opts: { storage?: 'file' | 'memory' } = {},
): Promise<KV> {
  const def: BucketDef = BUCKETS[name];
  return new Kvm(js).create(def.bucket, {
    description: def.description,
    history: def.history,
    ttl: def.ttlMs,
    maxValueSize: def.maxValueBytes,
    storage: opts.storage === 'memory' ? StorageType.Memory : StorageType.File,
  });
}
