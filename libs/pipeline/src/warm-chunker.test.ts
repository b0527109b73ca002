import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Chunker, type ChunkInput, createChunker } from '@codesift/chunking';
import type { FileRecord } from '@codesift/core';
import { indexRepository } from './local-runner.js';
import { WARM_SAMPLE_MAX_BYTES, warmChunker, warmSamples } from './warm-chunker.js';

const record = (p: string, language: string, size: number, chunkCount = 1): FileRecord => ({
  path: p,
  hash: p,
  size,
  mtimeMs: 0,
  language,
  chunkCount,
  symbolCount: 0,
  indexedAt: 0,
});

describe('warming the chunker', () => {
  let dir: string;
  let root: string;
  let indexPath: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-warm-'));
    root = path.join(dir, 'repo');
    const files: Record<string, string> = {
      'src/a.ts': 'export function alpha(): number {\n  return 1;\n}\n',
      'src/b.ts': 'export class Beta {\n  gamma(): number {\n    return 2;\n  }\n}\n',
      'py/c.py': 'def delta():\n    return 3\n',
      'README.md': '# Title\n\ntext\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    indexPath = path.join(dir, 'index.db');
    await indexRepository({ root, indexPath, vectors: false });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('samples one file per language: its largest that fits, else its smallest', () => {
    const big = WARM_SAMPLE_MAX_BYTES * 4;
    const picked = warmSamples([
      record('a.ts', 'typescript', 100),
      record('b.ts', 'typescript', 9000),
      record('c.ts', 'typescript', big),
      record('d.go', 'go', big * 2),
      record('e.go', 'go', big),
      record('empty.py', 'python', 10, 0),
    ]);
    assert.deepEqual(
      picked.map((r) => r.path),
      ['b.ts', 'e.go'],
    );
  });

  it('warms the languages the index holds, with files of the repository, and no other', async () => {
    const real = await createChunker();
    const seen: ChunkInput[] = [];
    const spy: Chunker = {
      supports: (l) => real.supports(l),
      chunkFile: (i) => real.chunkFile(i),
      warm: async (samples) => {
        seen.push(...samples);
        return real.warm!(samples);
      },
    };
    const warmed = await warmChunker(spy, root, indexPath);
    assert.deepEqual([...warmed].sort(), ['python', 'typescript']);
    assert.deepEqual(seen.map((s) => s.path).sort(), ['py/c.py', 'src/b.ts']);
    assert.ok(seen.every((s) => s.text.length > 0));
  });

  it('an index that cannot be read leaves the chunker cold, without an error', async () => {
    const chunker = await createChunker();
    assert.deepEqual(await warmChunker(chunker, root, path.join(dir, 'missing.db')), []);
  });
});
