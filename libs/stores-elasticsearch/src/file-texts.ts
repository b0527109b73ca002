/**
 * The FileTextStore port on Elasticsearch: one doc per file in its own index
 * (e.g. `codesift-files`), `{ path, text }`, id the manifest's (a SHA-256 of
 * the path). Nothing in it is searched: `text` is kept in `_source` only, and
 * read back by id with `mget`, which is real-time, so writes need no refresh.
 * A store set made before this index existed has none: reads find no text
 * (the query service then reads the disk, as before), and a writer creates it.
 */
import type { FileTextStore } from '@codesift/stores';
import type { Client, estypes } from '@elastic/elasticsearch';
import { BULK_BATCH_CHARS, BULK_BATCH_DOCS, checkBulkResponse } from './bulk.js';
import { call } from './errors.js';
import { ensureIndexWith, mgetItemError } from './indices.js';
import { manifestDocId } from './manifest.js';
import { fileTextIndexBody, type KeywordIndexSettingsOptions } from './template.js';

export interface FileTextSource {
  path: string;
  text: string;
}

export interface ElasticsearchFileTextsOptions extends KeywordIndexSettingsOptions {
  /** A configured client; the caller owns it. */
  client: Client;
  /** Index name, e.g. `codesift-files`. */
  index: string;
}

export class ElasticsearchFileTexts implements FileTextStore {
  readonly client: Client;
  readonly index: string;
  private readonly settings: KeywordIndexSettingsOptions;

  constructor(opts: ElasticsearchFileTextsOptions) {
    this.client = opts.client;
    this.index = opts.index;
    this.settings = {};
    if (opts.shards !== undefined) this.settings.shards = opts.shards;
    if (opts.replicas !== undefined) this.settings.replicas = opts.replicas;
  }

  /** Creates the index unless it exists (and checks an existing one); true when created. */
  ensureIndex(): Promise<boolean> {
    return ensureIndexWith(this.client, this.index, fileTextIndexBody(this.settings));
  }

  /** Deletes the whole index; a missing one is fine. */
  async drop(): Promise<void> {
    await call('delete index', this.index, () =>
      this.client.indices.delete({ index: this.index, ignore_unavailable: true }),
    );
  }

  async get(path: string): Promise<string | undefined> {
    const res = await call('mget', this.index, () =>
      this.client.mget<FileTextSource>({ index: this.index, ids: [manifestDocId(path)] }),
    );
    const d = res.docs[0];
    if (!d) return undefined;
    if ('error' in d) {
      // Written before file texts were kept: no text, the caller reads the disk.
      if (d.error.type === 'index_not_found_exception') return undefined;
      throw mgetItemError(this.index, d._id, d.error);
    }
    return d.found && d._source?.path === path ? d._source.text : undefined;
  }

  /**
   * Puts the texts given and deletes the stored text of every path in
   * `drop` (a commit without text must not leave an older one behind).
   */
  async replace(files: readonly FileTextSource[], drop: readonly string[] = []): Promise<void> {
    type Op = { id: string; doc?: FileTextSource };
    const ops: Op[] = [
      ...files.map((doc) => ({ id: manifestDocId(doc.path), doc })),
      ...[...new Set(drop)].map((p) => ({ id: manifestDocId(p) })),
    ];
    let batch: Op[] = [];
    let chars = 0;
    for (const op of ops) {
      const size = op.doc?.text.length ?? 0;
      if (
        batch.length > 0 &&
        (batch.length >= BULK_BATCH_DOCS || chars + size > BULK_BATCH_CHARS)
      ) {
        await this.bulk(batch);
        batch = [];
        chars = 0;
      }
      batch.push(op);
      chars += size;
    }
    if (batch.length > 0) await this.bulk(batch);
  }

  /** Deletes the texts of `paths`; a path without one is fine. */
  remove(paths: readonly string[]): Promise<void> {
    return this.replace([], paths);
  }

  private async bulk(ops: readonly { id: string; doc?: FileTextSource }[]): Promise<void> {
    const res = await call('bulk', this.index, () =>
      this.client.bulk({
        index: this.index,
        // Deleting a missing doc answers `not_found`, not an error.
        operations: ops.flatMap((op): (estypes.BulkOperationContainer | FileTextSource)[] =>
          op.doc ? [{ index: { _id: op.id } }, op.doc] : [{ delete: { _id: op.id } }],
        ),
      }),
    );
    checkBulkResponse(res, this.index);
  }
}
