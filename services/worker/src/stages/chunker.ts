// chunker: FileWork (content in the message) -> FileChunks on `chunks` (for
// the rest of the pipeline) and on `symbols` (for the symbol service).
import { publish } from '@codesift/bus';
import { createChunker } from '@codesift/chunking';
import type { StageDefinition } from '@codesift/service-kit';
import { chunkToWire, symbolToWire } from '../convert.js';

// The scanner sends the already decoded text as UTF-8 (see submit.ts), so
// this decode is exact and lossy files keep their replacement characters.
const utf8 = new TextDecoder('utf-8');

export const chunkerStage: StageDefinition = {
  name: 'chunker',
  async init({ js }) {
    const chunker = await createChunker();
    return {
      bindings: [
        {
          queue: 'files',
          async handler(work, ctx) {
            const result = chunker.chunkFile({
              path: work.path,
              language: work.language,
              text: utf8.decode(work.content),
            });
            const out = {
              jobId: work.jobId,
              path: work.path,
              language: work.language,
              hash: work.hash,
              size: work.size,
              mtimeMs: work.mtimeMs,
              chunks: result.chunks.map(chunkToWire),
              symbols: result.symbols.map(symbolToWire),
            };
            // Both publishes are acknowledged before the handler resolves, so
            // the file is only acked once both downstream queues hold it.
            await Promise.all([
              publish(js, 'chunks', out, { traceparent: ctx.trace }),
              publish(js, 'symbols', out, { traceparent: ctx.trace }),
            ]);
          },
        },
      ],
    };
  },
};
