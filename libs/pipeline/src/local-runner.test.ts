import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createChunker } from '@codesift/chunking';
import { CodesiftError } from '@codesift/core';
import type { Embedder } from '@codesift/models';
import { bundleText, SECRET_SAMPLES } from '@codesift/scanner/testing';
import { openSqliteIndex } from '@codesift/stores';
import { defaultIndexPath, indexRepository } from './local-runner.js';

/**
 * A deterministic stand-in model: hashed bag of words, 16-d. The pipeline's
 * behaviour (batching, ordering, crash repair) is what is under test here;
 * the real model is tested in @codesift/models and end to end in test/.
 */
function hashEmbedder(opts: { failAfterBatches?: number } = {}): Embedder & { batches: number } {
  const e = {
    name: 'test:hash-16',
    dimensions: 16,
    maxBatch: 4,
    batches: 0,
    async embed(texts: string[]) {
      e.batches++;
      if (opts.failAfterBatches !== undefined && e.batches > opts.failAfterBatches) {
        throw new Error('simulated crash in the embedder');
      }
      return texts.map((t) => {
        const v = new Float32Array(16);
        for (const w of t.split(/\W+/))
          if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 16]! += 1;
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
    async close() {},
  };
  return e;
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

const FILES: Record<string, string> = {
  'src/graph.ts': `/** A directed graph. */
export class Graph {
  private edges = new Map<string, string[]>();

  /** Inserts an edge from a to b. */
  addEdge(a: string, b: string): void {
    const list = this.edges.get(a) ?? [];
    list.push(b);
    this.edges.set(a, list);
  }

  neighbours(a: string): string[] {
    return this.edges.get(a) ?? [];
  }
}
`,
  'src/util.py': `def slugify(text):
    """Turns text into a URL slug."""
    return "-".join(text.lower().split())


class Cache:
    def get(self, key):
        return None
`,
  'cmd/main.go': `package main

import "fmt"

// Run prints a greeting.
func Run(name string) {
	fmt.Println("hello", name)
}
`,
  'README.md': `# Demo\n\nSome words.\n\n## Usage\n\nRun it.\n`,
  'notes.txt': 'plain text file\nwith lines\n',
  'logo.png': '\x89PNG\r\n\x1a\n\0\0\0binary',
  '.gitignore': 'ignored/\n',
  'ignored/secret.ts': 'export const x = 1;\n',
};

describe('indexRepository (real scanner, chunker and SQLite store)', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-runner-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('files left without AST chunks, and files chunked by the brace recognizer, are counted by language, with why, in the summary', async () => {
    const root = path.join(work, 'no-ast');
    writeTree(root, {
      'src/util.py': 'def add(a, b):\n    return a + b\n',
      'src/other.py': 'def sub(a, b):\n    return a - b\n',
      'Sources/Greeter.swift': 'struct Greeter {\n  func hello() -> String { "hi" }\n}\n',
      'src/main.go': 'package main\n\nfunc main() {}\n',
    });
    const warnings: string[] = [];
    const chunker = await createChunker({
      grammars: {
        wasmPaths: { python: path.join(root, 'missing.wasm') },
        warn: (m) => warnings.push(m),
      },
    });
    const summary = await indexRepository({ root, vectors: false, chunker });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.deepEqual(Object.keys(summary.noAst ?? {}), ['python']);
    assert.equal(summary.noAst?.python?.files, 2);
    assert.deepEqual(summary.noAst?.python?.paths, ['src/other.py', 'src/util.py']);
    assert.match(
      summary.noAst?.python?.reason ?? '',
      /python grammar .* failed to load: .*missing\.wasm/,
    );
    // Swift has no grammar either, but the brace recognizer chunks it, and says so.
    assert.deepEqual(Object.keys(summary.structural ?? {}), ['swift']);
    assert.equal(summary.structural?.swift?.files, 1);
    assert.deepEqual(summary.structural?.swift?.paths, ['Sources/Greeter.swift']);
    assert.match(summary.structural?.swift?.reason ?? '', /brace recognizer.*Swift \.wasm/);
    // Still indexed, as line windows; Go kept its grammar.
    assert.equal(summary.filesIndexed, 4);
    assert.equal(summary.failures.length, 0);
  });

  test('indexes a tree, then a second run re-processes only what changed', async () => {
    const root = path.join(work, 'incremental');
    writeTree(root, FILES);
    const embedder = hashEmbedder();
    const first = await indexRepository({ root, embedder });
    assert.equal(first.filesIndexed, 6, JSON.stringify(first)); // graph.ts util.py main.go README.md notes.txt .gitignore
    assert.equal(first.filesNew, 6);
    assert.equal(first.filesDeleted, 0);
    assert.equal(first.skipped.binary, 1);
    assert.ok((first.skipped.ignored ?? 0) >= 1);
    // Paths by reason; plain 'ignored' ones are only counted.
    assert.deepEqual(first.skippedPaths, { binary: ['logo.png'] });
    assert.ok(first.chunks >= 6, `chunks ${first.chunks}`);
    assert.equal(first.vectors, first.chunks);
    assert.ok(first.symbols >= 6, `symbols ${first.symbols}`);
    assert.equal(first.totals.chunks, first.chunks);
    assert.equal(first.totals.vectors, first.chunks);

    const second = await indexRepository({ root, embedder });
    assert.equal(second.filesIndexed, 0);
    assert.equal(second.filesUnchanged, 6);
    assert.equal(second.chunks, 0);
    assert.equal(second.totals.chunks, first.totals.chunks);

    // edit one, add one, delete one, touch one without changing it
    writeFileSync(
      path.join(root, 'src/util.py'),
      `${FILES['src/util.py']}\n\ndef extra():\n    return 42\n`,
    );
    writeFileSync(
      path.join(root, 'src/new.ts'),
      'export function fresh(): number {\n  return 1;\n}\n',
    );
    rmSync(path.join(root, 'cmd/main.go'));
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(root, 'README.md'), later, later);
    const third = await indexRepository({ root, embedder });
    assert.equal(third.filesChanged, 1);
    assert.equal(third.filesNew, 1);
    assert.equal(third.filesDeleted, 1);
    assert.equal(third.filesUnchanged, 4); // .gitignore, notes.txt, graph.ts untouched + README touched-but-identical

    const index = openSqliteIndex(defaultIndexPath(root), { create: false });
    try {
      const manifest = await index.manifest.all();
      assert.deepEqual([...manifest.keys()].sort(), [
        '.gitignore',
        'README.md',
        'notes.txt',
        'src/graph.ts',
        'src/new.ts',
        'src/util.py',
      ]);
      const readme = manifest.get('README.md')!;
      assert.ok(
        Math.abs(readme.mtimeMs - later.getTime()) < 1,
        'touched file has its new mtime recorded',
      );
      assert.deepEqual(
        await index.symbols.lookup('Run'),
        [],
        'symbols of the deleted file are gone',
      );
      const extra = await index.symbols.lookup('extra');
      assert.equal(extra[0]?.path, 'src/util.py');
      const stats = index.stats();
      assert.equal(stats.vectors, stats.chunks);
      assert.equal(
        index.meta().root,
        root,
        'the index remembers the directory its paths are relative to',
      );
      assert.equal(index.meta().embedder, 'test:hash-16');
    } finally {
      index.close();
    }
    const fourth = await indexRepository({ root, embedder });
    assert.equal(fourth.filesIndexed, 0, 'the touched file is not re-read a second time');
  });

  test('a run that dies half-way leaves a consistent index that the next run repairs', async () => {
    const root = path.join(work, 'crash');
    const many: Record<string, string> = {};
    for (let i = 0; i < 40; i++) {
      many[`src/mod${i}.ts`] =
        `export function handler${i}(x: number): number {\n  return x * ${i};\n}\n`;
    }
    writeTree(root, many);
    await assert.rejects(
      indexRepository({ root, embedder: hashEmbedder({ failAfterBatches: 3 }), commitEvery: 2 }),
      /simulated crash/,
    );
    const partial = openSqliteIndex(defaultIndexPath(root), { create: false });
    const partialFiles = partial.stats().files;
    const manifest = await partial.manifest.all();
    for (const rec of manifest.values()) {
      const chunks = await partial.keyword.search({
        terms: [{ term: `handler${rec.path.match(/\d+/)![0]}` }],
        limit: 5,
      });
      assert.ok(
        chunks.some((c) => c.path === rec.path),
        `${rec.path} is in the manifest and fully searchable`,
      );
    }
    partial.close();
    assert.ok(
      partialFiles > 0 && partialFiles < 40,
      `some but not all files were committed (${partialFiles})`,
    );

    const repaired = await indexRepository({ root, embedder: hashEmbedder() });
    assert.equal(repaired.filesIndexed, 40 - partialFiles);
    assert.equal(repaired.totals.files, 40);

    // the repaired index holds exactly what a clean run produces
    const clean = path.join(work, 'crash-clean.db');
    await indexRepository({ root, embedder: hashEmbedder(), indexPath: clean });
    const a = openSqliteIndex(defaultIndexPath(root), { create: false });
    const b = openSqliteIndex(clean, { create: false });
    try {
      assert.deepEqual(a.stats().chunks, b.stats().chunks);
      assert.deepEqual(a.stats().vectors, b.stats().vectors);
      const ids = async (ix: typeof a) =>
        (await ix.keyword.search({ terms: [{ term: 'handler' }, { term: 'return' }], limit: 1000 }))
          .map((h) => h.id)
          .sort();
      assert.deepEqual(await ids(a), await ids(b));
    } finally {
      a.close();
      b.close();
    }
  });

  test('vectors can be turned off; --rebuild re-processes everything', async () => {
    const root = path.join(work, 'novec');
    writeTree(root, FILES);
    const s = await indexRepository({ root, vectors: false });
    assert.equal(s.embedder, null);
    assert.equal(s.vectors, 0);
    assert.ok(s.chunks > 0);
    const again = await indexRepository({ root, vectors: false, rebuild: true });
    assert.equal(again.filesIndexed, s.filesIndexed);
    assert.equal(again.totals.chunks, s.totals.chunks);
  });

  test('secrets are redacted before they are stored, and counted by rule', async () => {
    const root = path.join(work, 'secrets');
    const s = SECRET_SAMPLES;
    writeTree(root, {
      'app/settings.py': `import os\n\nAWS_KEY = "${s['aws-access-key']!.secret}"\nDEBUG = True\n`,
      'app/client.ts': `export const token = "${s['github-token']!.secret}";\n${s['private-key']!.line}\nexport const port = 8080;\n`,
      'keys/deploy_key.txt': `${s['private-key']!.line}\n`,
      'dist/bundle.js': bundleText(5000),
      'web/bundle.js': bundleText(20_000),
    });
    const summary = await indexRepository({ root, vectors: false });
    assert.deepEqual(summary.secretsRedacted, {
      'aws-access-key': 1,
      'github-token': 1,
      'private-key': 1,
    });
    // The key file by content, the bundle by its shape (dist/ by its name, as before).
    assert.deepEqual(summary.skipped, { secret: 1, generated: 1, minified: 1 });
    // A whole directory skipped by its name is listed once, as the directory.
    assert.deepEqual(summary.skippedPaths, {
      generated: ['dist'],
      minified: ['web/bundle.js'],
      secret: ['keys/deploy_key.txt'],
    });
    assert.equal(summary.filesIndexed, 2);
    const index = openSqliteIndex(defaultIndexPath(root), { create: false });
    try {
      const hits = await index.keyword.search({ terms: [{ term: 'redacted' }], limit: 10 });
      const chunks = await index.chunks.get(hits.map((h) => h.id));
      const stored = chunks.map((c) => c.content).join('\n');
      assert.match(stored, /\[REDACTED:aws-access-key\]/);
      assert.match(stored, /\[REDACTED:github-token\]/);
      for (const { secret } of Object.values(s)) assert.ok(!stored.includes(secret));
      // Lines after the redacted key block keep their numbers.
      const port = await index.keyword.search({ terms: [{ term: 'port' }], limit: 10 });
      const client = (await index.chunks.get(port.map((h) => h.id))).find((c) =>
        c.content.includes('port = 8080'),
      );
      assert.ok(client);
      const offset = client.content.split('\n').findIndex((l) => l.includes('port = 8080'));
      assert.equal(client.startLine + offset, 6);
    } finally {
      index.close();
    }
  });

  test('policy skip (config file or option): a file holding a secret is left out, counted as secret', async () => {
    const root = path.join(work, 'secrets-skip');
    const s = SECRET_SAMPLES;
    writeTree(root, {
      'app/settings.py': 'DEBUG = True\n',
      'app/plain.ts': 'export const token = getToken();\n',
    });
    const first = await indexRepository({ root, vectors: false });
    assert.equal(first.filesIndexed, 2);
    // A secret lands in an indexed file, and the tree asks for skip.
    writeFileSync(
      path.join(root, 'app/settings.py'),
      `DEBUG = True\nAWS_KEY = "${s['aws-access-key']!.secret}"\n`,
    );
    writeFileSync(path.join(root, '.codesift.json'), '{"secrets": "skip"}\n');
    const skipped = await indexRepository({ root, vectors: false });
    assert.deepEqual(skipped.skipped, { secret: 1 });
    assert.deepEqual(skipped.skippedPaths, { secret: ['app/settings.py'] });
    assert.deepEqual(skipped.secretsRedacted, {});
    assert.ok(!JSON.stringify(skipped).includes(s['aws-access-key']!.secret));
    const index = openSqliteIndex(defaultIndexPath(root), { create: false });
    try {
      // Its earlier, clean version is gone from the index too.
      assert.equal(await index.manifest.get('app/settings.py'), undefined);
      assert.ok(await index.manifest.get('app/plain.ts'));
    } finally {
      index.close();
    }
    // The option wins over the file.
    const redacted = await indexRepository({ root, vectors: false, secrets: 'redact' });
    assert.deepEqual(redacted.secretsRedacted, { 'aws-access-key': 1 });
    assert.equal(redacted.skipped.secret, undefined);
    writeFileSync(path.join(root, '.codesift.json'), '{"secrets": "never"}\n');
    await assert.rejects(
      indexRepository({ root, vectors: false }),
      (err: unknown) => err instanceof CodesiftError && /"secrets" must be/.test(err.message),
    );
  });

  test('progress reports phases in order and ends at done', async () => {
    const root = path.join(work, 'progress');
    writeTree(root, FILES);
    const phases: string[] = [];
    await indexRepository({
      root,
      vectors: false,
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
    });
    assert.deepEqual(phases, ['open', 'scan', 'plan', 'index', 'finish', 'done']);
  });

  test('a missing root is a clear error and creates nothing', async () => {
    const root = path.join(work, 'does-not-exist');
    await assert.rejects(indexRepository({ root, vectors: false }), (e: unknown) => {
      return e instanceof CodesiftError && e.code === 'ENOENT_ROOT';
    });
    assert.throws(() => readFileSync(defaultIndexPath(root)));
  });
});

describe('indexRepository only (the changed files alone)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-only-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('looks at the named files alone; a directory among them means the whole tree', async () => {
    const root = path.join(dir, 'repo');
    writeTree(root, FILES);
    const indexPath = path.join(dir, 'index.db');
    const first = await indexRepository({ root, indexPath, vectors: false });
    const total = first.filesScanned;
    writeTree(root, {
      'src/graph.ts': 'export class Graph2 {}\n',
      'src/extra.ts': 'export const x = 1;\n',
    });
    const narrowed = await indexRepository({
      root,
      indexPath,
      vectors: false,
      only: ['src/graph.ts', 'src/gone.ts'],
    });
    assert.equal(narrowed.filesScanned, 1);
    assert.equal(narrowed.filesChanged, 1);
    assert.equal(narrowed.filesNew, 0, 'src/extra.ts was not named, so not looked at');
    assert.equal(narrowed.totals.files, total);

    const whole = await indexRepository({ root, indexPath, vectors: false, only: ['src'] });
    assert.equal(whole.filesScanned, total + 1);
    assert.equal(whole.filesNew, 1);
  });
});
