// symbols: FileChunks on `symbols` -> the symbol service's store.
//
// The writer already stores each file's symbols in CODESIFT_INDEX, in the
// same transaction as its chunks (the local mode's layout, which search
// reads today). This stage therefore writes only when CODESIFT_SYMBOLS_INDEX
// names a separate SQLite file (the future symbol service's own store);
// without it, it acknowledges the messages so the queue does not grow.
import path from 'node:path';
import type { StageDefinition } from '@codesift/service-kit';
import { openSqliteIndex } from '@codesift/stores';
import { symbolFromWire } from '../convert.js';

export const symbolsStage: StageDefinition = {
  name: 'symbols',
  async init({ env, log }) {
    const file = env.CODESIFT_SYMBOLS_INDEX?.trim();
    const index = file ? openSqliteIndex(path.resolve(file), { create: true }) : null;
    if (!index) log.info('no CODESIFT_SYMBOLS_INDEX: symbols are stored by the writer only');
    return {
      bindings: [
        {
          queue: 'symbols',
          async handler(chunks) {
            if (!index) return;
            // Replace the file's symbols: delete-then-upsert is idempotent on redelivery.
            await index.symbols.deleteByPaths([chunks.path]);
            await index.symbols.upsert(chunks.symbols.map(symbolFromWire));
          },
        },
      ],
      close: () => index?.close(),
    };
  },
};
