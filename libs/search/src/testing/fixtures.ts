/**
 * What the engine's tests share: a small tree indexed into a temporary
 * SQLite file, and a deterministic bag-of-terms embedder that records the
 * texts of each embed() call.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyze } from '@codesift/analysis';
import type { Embedder } from '@codesift/models';
import { indexRepository } from '@codesift/pipeline';

/** Each term hashed into one of `dimensions` buckets, L2-normalised; `batches` holds every call's texts. */
export function hashEmbedder(
  name = 'test:hash-48',
  dimensions = 48,
): Embedder & { batches: string[][] } {
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimensions);
    for (const t of analyze(text)) {
      let h = 2166136261;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
      v[(h >>> 0) % dimensions]! += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  const e = {
    name,
    dimensions,
    maxBatch: 64,
    batches: [] as string[][],
    embed: async (texts: string[]) => {
      e.batches.push([...texts]);
      return texts.map(embedOne);
    },
    close: async () => {},
  };
  return e;
}

export interface IndexedTree {
  indexPath: string;
  remove(): void;
}

/** Writes `tree` (relative path -> content) under a temporary directory and indexes it. */
export async function indexedTree(
  tree: Record<string, string>,
  options: { vectors: boolean; embedder?: Embedder },
): Promise<IndexedTree> {
  const dir = mkdtempSync(path.join(tmpdir(), 'codesift-search-test-'));
  const root = path.join(dir, 'repo');
  for (const [rel, text] of Object.entries(tree)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  const indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, ...options });
  return { indexPath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
