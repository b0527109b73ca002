// chunker: a batch of FileWork (content in the message) -> FileChunks with
// the file's text on `chunks` (for the rest of the pipeline) and the files' symbols on
// `symbols` (for the symbol service).
import { createWorkFile, type WorkFile, type WorkMessage } from '@codesift/bus';
import { type Chunker, createChunker } from '@codesift/chunking';
import { errorMessage } from '@codesift/core';
import type { FailedFile, StageDefinition, StageResult } from '@codesift/service-kit';
import { chunkToWire, symbolToWire } from '@codesift/wire';

// The scanner sends the already decoded text as UTF-8 (see
// @codesift/cluster-services' submitIndexJob), so this decode is exact and
// lossy files keep their replacement characters.
const utf8 = new TextDecoder('utf-8');

/**
 * Chunks every file of the batch. Both queues get the batch's files, and
 * runStage publishes both before the batch is acked, so a file is only done
 * here once the pipeline and the symbol service both have it.
 */
export function chunkBatch(chunker: Chunker, batch: WorkMessage<'files'>): StageResult<'files'> {
  const chunked: WorkFile<'chunks'>[] = [];
  const symbols: WorkFile<'symbols'>[] = [];
  const failed: FailedFile<'files'>[] = [];
  for (const work of batch.files) {
    let result: ReturnType<Chunker['chunkFile']>;
    const text = utf8.decode(work.content);
    try {
      result = chunker.chunkFile({ path: work.path, language: work.language, text });
    } catch (err) {
      // Chunking is a pure function of the file: it fails the same way
      // every time, so only this file fails.
      failed.push({ file: work, reason: `chunk: ${errorMessage(err)}` });
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
        // The writer keeps it beside the chunks: the query service serves
        // snippets from the stores, not from a checkout it may not have.
        text,
        // Passed on to the writer, whose job events count them per language.
        noAst: result.noAst ?? '',
        structural: result.structural ?? '',
      }),
    );
    // The symbol service needs no chunk text: leave it out.
    symbols.push(createWorkFile('symbols', { ...meta, symbols: wireSymbols }));
  }
  return {
    failed,
    out: [
      { queue: 'chunks', files: chunked },
      { queue: 'symbols', files: symbols },
    ],
  };
}

export const chunkerStage: StageDefinition = {
  name: 'chunker',
  async init() {
    const chunker = await createChunker();
    return {
      bindings: [{ queue: 'files', handler: async (batch) => chunkBatch(chunker, batch) }],
    };
  },
};
