// chunker: a batch of FileWork (content in the message) -> FileChunks on
// `chunks` (for the rest of the pipeline) and the files' symbols on
// `symbols` (for the symbol service).
import { createWorkFile, type WorkFile } from '@codesift/bus';
import { createChunker } from '@codesift/chunking';
import { errorMessage } from '@codesift/core';
import type { StageDefinition } from '@codesift/service-kit';
import { chunkToWire, symbolToWire } from '../convert.js';
import { byPath, publishFitted } from '../publish-batch.js';

// The scanner sends the already decoded text as UTF-8 (see submit.ts), so
// this decode is exact and lossy files keep their replacement characters.
const utf8 = new TextDecoder('utf-8');

export const chunkerStage: StageDefinition = {
  name: 'chunker',
  async init({ js, nc }) {
    const chunker = await createChunker();
    return {
      bindings: [
        {
          queue: 'files',
          async handler(batch, ctx) {
            const chunked: WorkFile<'chunks'>[] = [];
            const symbols: WorkFile<'symbols'>[] = [];
            for (const work of batch.files) {
              let result: ReturnType<typeof chunker.chunkFile>;
              try {
                result = chunker.chunkFile({
                  path: work.path,
                  language: work.language,
                  text: utf8.decode(work.content),
                });
              } catch (err) {
                // Chunking is a pure function of the file: it fails the same
                // way every time, so only this file fails.
                await ctx.fileFailed(work, `chunk: ${errorMessage(err)}`);
                continue;
              }
              const meta = {
                path: work.path,
                language: work.language,
                hash: work.hash,
                size: work.size,
                mtimeMs: work.mtimeMs,
              };
              const wireSymbols = result.symbols.map(symbolToWire);
              chunked.push(
                createWorkFile('chunks', {
                  ...meta,
                  chunks: result.chunks.map(chunkToWire),
                  symbols: wireSymbols,
                }),
              );
              // The symbol service needs no chunk text: leave it out.
              symbols.push(createWorkFile('symbols', { ...meta, symbols: wireSymbols }));
            }
            // Both queues hold the batch before the handler resolves, so the
            // files are only acked once both downstream queues have them.
            const out = { js, nc, ctx, inputs: byPath(batch.files) };
            await Promise.all([
              publishFitted(out, 'chunks', batch.jobId, chunked),
              publishFitted(out, 'symbols', batch.jobId, symbols),
            ]);
          },
        },
      ],
    };
  },
};
