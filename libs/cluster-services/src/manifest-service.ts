// The manifest service: the writer lists its index manifest (every indexed
// file's path, hash, size, mtime, ...) over NATS request/reply, so a scanner
// can plan an incremental job without sharing the writer's disk.
//
// A manifest can hold 100k+ files, more than one NATS message carries, so
// the listing is paged in path order. The first request takes a snapshot;
// later pages name it and the last path they saw. A page whose snapshot is
// gone (expired, or another writer replica answered) is served from a fresh
// snapshot, continuing after that path: every path is listed once, in order.
// A scanner indexing one repository of many asks for that repository's
// files only (its path prefix): a job plans within its own repository.
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { type Responder, requestService, type ServeOptions, serveRequests } from '@codesift/bus';
import {
  CodesiftError,
  checkRepositoryName,
  type FileRecord,
  repositoryPrefix,
} from '@codesift/core';
import { type ManifestEntry, ManifestEntrySchema } from '@codesift/proto';
import type { NatsConnection } from '@nats-io/transport-node';

/** What the writer offers the service. */
export interface ManifestSource {
  /** Every record, or those whose path starts with `prefix`. */
  all(prefix?: string): Promise<Map<string, FileRecord>> | Map<string, FileRecord>;
  /**
   * Records the root the index's paths are relative to, or the directory of
   * `repository` (a scanner names them); throws when the job does not fit
   * the index (see @codesift/core placeRoot).
   */
  setRoot?(root: string, repository?: string): void | Promise<void>;
}

export const DEFAULT_MANIFEST_PAGE = 5000;
export const MAX_MANIFEST_PAGE = 20_000;
/** Encoded bytes per page at most: under NATS's default 1 MiB max_payload. */
const PAGE_BYTES = 512 * 1024;
const SNAPSHOT_TTL_MS = 60_000;
const MAX_SNAPSHOTS = 4;

interface Snapshot {
  records: FileRecord[];
  usedAt: number;
  /** The repository listed ('' for all files). */
  repository: string;
}

export interface ManifestServiceOptions extends ServeOptions {
  /** How long an idle snapshot is kept; default 60 s. */
  snapshotTtlMs?: number;
}

export function serveManifest(
  nc: NatsConnection,
  source: ManifestSource,
  opts: ManifestServiceOptions = {},
): Responder {
  const ttl = opts.snapshotTtlMs ?? SNAPSHOT_TTL_MS;
  const snapshots = new Map<string, Snapshot>();
  const take = async (repository: string): Promise<[string, Snapshot]> => {
    const now = Date.now();
    for (const [id, s] of snapshots) if (now - s.usedAt > ttl) snapshots.delete(id);
    while (snapshots.size >= MAX_SNAPSHOTS) snapshots.delete(snapshots.keys().next().value!);
    const prefix = repository === '' ? '' : repositoryPrefix(repository);
    const records = [...(await source.all(prefix)).values()].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );
    const id = randomUUID();
    const s = { records, usedAt: now, repository };
    snapshots.set(id, s);
    return [id, s];
  };
  return serveRequests(
    nc,
    'manifestPage',
    async (req) => {
      if (req.limit > MAX_MANIFEST_PAGE) {
        throw new CodesiftError(
          'INVALID_ARGUMENT',
          `manifest page limit must be at most ${MAX_MANIFEST_PAGE}, got ${req.limit}`,
        );
      }
      if (req.repository) checkRepositoryName(req.repository);
      if (req.root && !req.snapshot) await source.setRoot?.(req.root, req.repository || undefined);
      let id = req.snapshot;
      let snap = id ? snapshots.get(id) : undefined;
      if (snap && snap.repository !== req.repository) snap = undefined;
      if (!snap) [id, snap] = await take(req.repository);
      snap.usedAt = Date.now();
      const start = req.after ? firstAfter(snap.records, req.after) : 0;
      const limit = req.limit || DEFAULT_MANIFEST_PAGE;
      const files: ManifestEntry[] = [];
      let bytes = 0;
      let i = start;
      for (; i < snap.records.length && files.length < limit; i++) {
        const r = snap.records[i]!;
        // Upper bound of the entry's encoding: strings plus ~40 bytes of numbers and tags.
        const size = Buffer.byteLength(r.path) + r.hash.length + r.language.length + 48;
        if (files.length > 0 && bytes + size > PAGE_BYTES) break;
        bytes += size;
        files.push(recordToWire(r));
      }
      const done = i >= snap.records.length;
      if (done) snapshots.delete(id);
      return { snapshot: done ? '' : id, files, done, total: BigInt(snap.records.length) };
    },
    opts,
  );
}

/** Index of the first record whose path sorts after `after` (binary search). */
function firstAfter(records: FileRecord[], after: string): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (records[mid]!.path <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function recordToWire(r: FileRecord): ManifestEntry {
  return create(ManifestEntrySchema, {
    path: r.path,
    hash: r.hash,
    size: BigInt(r.size),
    mtimeMs: r.mtimeMs,
    language: r.language,
    chunkCount: r.chunkCount,
    symbolCount: r.symbolCount,
    indexedAtMs: r.indexedAt,
  });
}

function recordFromWire(e: ManifestEntry): FileRecord {
  return {
    path: e.path,
    hash: e.hash,
    size: Number(e.size),
    mtimeMs: e.mtimeMs,
    language: e.language,
    chunkCount: e.chunkCount,
    symbolCount: e.symbolCount,
    indexedAt: e.indexedAtMs,
  };
}

export interface FetchManifestOptions {
  /** Recorded by the writer as the index's root (a scanner passes its job's root). */
  root?: string;
  /**
   * List this repository's files only, and record `root` as its directory
   * (an index of many repositories); default: the whole index.
   */
  repository?: string;
  /** Records per page; default the service's (5000). */
  pageSize?: number;
  /** Per page request; default 10 s (a first page of a large manifest takes a snapshot). */
  timeoutMs?: number;
  /**
   * How long to keep asking while no writer answers at all (one may be
   * starting: services start in any order); default 0, fail at once.
   */
  waitForServiceMs?: number;
  signal?: AbortSignal;
}

/**
 * The writer's whole manifest, by path, fetched page by page. Rejects like
 * requestService: no writer answering, a timeout, or the writer's error.
 */
export async function fetchManifest(
  nc: NatsConnection,
  opts: FetchManifestOptions = {},
): Promise<Map<string, FileRecord>> {
  const out = new Map<string, FileRecord>();
  let snapshot = '';
  let after = '';
  for (;;) {
    opts.signal?.throwIfAborted();
    const ask = () =>
      requestService(
        nc,
        'manifestPage',
        {
          root: opts.root ?? '',
          repository: opts.repository ?? '',
          snapshot,
          after,
          limit: opts.pageSize ?? 0,
        },
        { timeoutMs: opts.timeoutMs ?? 10_000 },
      );
    const page = snapshot === '' ? await untilAnswered(ask, opts) : await ask();
    for (const e of page.files) out.set(e.path, recordFromWire(e));
    if (page.done) return out;
    if (page.files.length === 0) {
      throw new CodesiftError('INTERNAL', 'manifest service sent an empty page before the end');
    }
    snapshot = page.snapshot;
    after = page.files[page.files.length - 1]!.path;
  }
}

/** Retries `ask` while nobody answers (UNAVAILABLE), for up to `waitForServiceMs`. */
async function untilAnswered<T>(
  ask: () => Promise<T>,
  opts: Pick<FetchManifestOptions, 'waitForServiceMs' | 'signal'>,
): Promise<T> {
  const deadline = Date.now() + (opts.waitForServiceMs ?? 0);
  for (;;) {
    try {
      return await ask();
    } catch (err) {
      const unavailable = err instanceof CodesiftError && err.code === 'UNAVAILABLE';
      if (!unavailable || Date.now() >= deadline) throw err;
      opts.signal?.throwIfAborted();
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
