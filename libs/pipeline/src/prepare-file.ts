import type { Chunker } from '@codesift/chunking';
import { applyContext, type ChunkContext, type Contextualizer } from '@codesift/context';
import { errorMessage, type FileContent, type FileRecord } from '@codesift/core';
import type { FileCommit } from '@codesift/stores';

/** What one read file becomes before embedding and writing. */
export type PreparedFile =
  /** Touched but identical: only its new stat is recorded. */
  | { kind: 'touch'; record: FileRecord }
  /** Chunked and contextualized; `vectors` is filled by the embedder, if any. */
  | {
      kind: 'write';
      commit: FileCommit;
      contexts: ChunkContext[];
      noAst?: string;
      structural?: string;
    }
  | { kind: 'failed'; reason: string };

/**
 * Chunk and contextualize one file. A file whose content hash equals the
 * manifest's is not re-chunked (its mtime moved, its content did not), unless
 * the run rebuilds everything. Errors become a `failed` outcome so one bad
 * file never stops a run.
 */
export async function prepareFile(
  content: FileContent,
  previous: FileRecord | undefined,
  deps: { chunker: Chunker; contextualizer: Contextualizer; rebuild: boolean },
): Promise<PreparedFile> {
  if (previous && previous.hash === content.hash && !deps.rebuild) {
    return { kind: 'touch', record: { ...previous, size: content.size, mtimeMs: content.mtimeMs } };
  }
  try {
    const result = deps.chunker.chunkFile({
      path: content.path,
      language: content.language,
      text: content.text,
    });
    // The outline (the file's symbols) lets an LLM situate each chunk in its file.
    const contexts = await deps.contextualizer.contextualizeFile(result.chunks, {
      path: content.path,
      language: content.language,
      symbols: result.symbols,
    });
    result.chunks.forEach((c, j) => {
      applyContext(c, contexts[j]);
    });
    const record: FileRecord = {
      path: content.path,
      hash: content.hash,
      size: content.size,
      mtimeMs: content.mtimeMs,
      language: content.language,
      chunkCount: result.chunks.length,
      symbolCount: result.symbols.length,
      indexedAt: Date.now(),
    };
    return {
      kind: 'write',
      commit: { record, chunks: result.chunks, vectors: null, symbols: result.symbols },
      contexts,
      ...(result.noAst === undefined ? {} : { noAst: result.noAst }),
      ...(result.structural === undefined ? {} : { structural: result.structural }),
    };
  } catch (err) {
    return { kind: 'failed', reason: errorMessage(err) };
  }
}
