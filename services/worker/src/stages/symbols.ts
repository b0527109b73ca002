// symbols: FileChunks on `symbols` -> the symbol service's store.
//
// The writer already stores each file's symbols in CODESIFT_INDEX, in the
// same transaction as its chunks (the local mode's layout, which search
// reads today). This stage therefore writes only when CODESIFT_SYMBOLS_INDEX
// names a separate SQLite file (the future symbol service's own store);
// without it, it acknowledges the messages so the queue does not grow.
import path from 'node:path';
import type { WorkMessage } from '@codesift/bus';
import { lazySymbolReader, serveSymbolIndex } from '@codesift/cluster-services';
import type { StageDefinition } from '@codesift/service-kit';
import { openSqliteIndex, type SymbolIndex } from '@codesift/stores';
import { symbolFromWire } from '@codesift/wire';

/**
 * Replaces every file's symbols: delete-then-upsert is idempotent on
 * redelivery, and a file that lost all its symbols loses them here too.
 */
export async function storeSymbols(
  store: Pick<SymbolIndex, 'deleteByPaths' | 'upsert'>,
  batch: WorkMessage<'symbols'>,
): Promise<void> {
  await store.deleteByPaths(batch.files.map((f) => f.path));
  await store.upsert(batch.files.flatMap((f) => f.symbols.map(symbolFromWire)));
}

export const symbolsStage: StageDefinition = {
  name: 'symbols',
  async init({ env, log, nc, config }) {
    const file = env.CODESIFT_SYMBOLS_INDEX?.trim();
    const index = file ? openSqliteIndex(path.resolve(file), { create: true }) : null;
    // Lookups and vocabulary (NATS request/reply) come from this stage's own
    // store; without one (the development cluster) from the writer's index,
    // read-only, opened once the writer has created it.
    const fallback =
      !index && config.indexPath
        ? lazySymbolReader(() => openSqliteIndex(config.indexPath!, { readonly: true }))
        : null;
    const reader = index?.symbols ?? fallback?.reader;
    const service = reader
      ? serveSymbolIndex(nc, reader, {
          onError: (err, name) => log.warn('symbol request failed', { request: name, error: err }),
        })
      : null;
    if (!index) {
      log.info(
        reader
          ? 'no CODESIFT_SYMBOLS_INDEX: symbols are stored by the writer; answering from CODESIFT_INDEX'
          : 'neither CODESIFT_SYMBOLS_INDEX nor CODESIFT_INDEX: no symbol store, symbol requests go unanswered',
      );
    }
    return {
      bindings: [
        {
          queue: 'symbols',
          async handler(batch) {
            if (index) await storeSymbols(index.symbols, batch);
          },
        },
      ],
      close: async () => {
        await service?.stop();
        fallback?.close();
        index?.close();
      },
    };
  },
};
