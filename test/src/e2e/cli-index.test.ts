import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { collect, repoRoot, runCli, startCli } from '../support/cli.js';
import { syntheticRepo, writeTree } from '../support/tree.js';

/** `codesift index` as a user runs it: the real launcher in a child process. */
describe('codesift index (CLI, end to end)', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('--json prints one summary object and a re-run finds nothing to do', async () => {
    const root = path.join(work, 'basic');
    writeTree(root, {
      'src/a.ts': 'export function alpha(): number {\n  return 1;\n}\n',
      'src/b.py': 'def beta():\n    return 2\n',
      'README.md': '# Title\n\ntext\n',
    });
    const r = await runCli(['index', root, '--json', '--no-vectors']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.filesIndexed, 3);
    assert.equal(s.filesDeleted, 0);
    assert.ok(s.chunks >= 3);
    assert.ok(s.symbols >= 2);
    assert.equal(typeof s.seconds, 'number');
    assert.deepEqual(Object.keys(s.skipped).sort(), Object.keys(s.skipped).sort());
    assert.match(
      r.stderr,
      /indexing 3 of 3 files/,
      'plain progress lines go to stderr when not a TTY',
    );

    const again = JSON.parse((await runCli(['index', root, '--json', '--no-vectors'])).stdout);
    assert.equal(again.filesIndexed, 0);
    assert.equal(again.filesUnchanged, 3);
  });

  test('Swift files say they were chunked by the brace recognizer, in the summary and in --json', async () => {
    const root = path.join(work, 'swift');
    writeTree(root, {
      'Sources/Till/Basket.swift':
        'public struct Basket {\n    var goods: [Double] = []\n\n    public func subtotal() -> Double {\n        goods.reduce(0, +)\n    }\n}\n',
    });
    const text = await runCli([
      'index',
      root,
      '--no-vectors',
      '--index',
      path.join(root, 'text.db'),
    ]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout + text.stderr,
      /braces {2}swift: 1 files chunked by the brace recognizer .*Swift \.wasm/,
    );
    assert.doesNotMatch(text.stdout + text.stderr, /no AST/);
    const r = await runCli(['index', root, '--json', '--no-vectors']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.deepEqual(s.noAst, {});
    assert.equal(s.structural.swift.files, 1);
    assert.deepEqual(s.structural.swift.paths, ['Sources/Till/Basket.swift']);
    // struct Basket, field Basket.goods, method Basket.subtotal.
    assert.equal(s.symbols, 3);
  });

  test('bad input is skipped by reason and loses nothing else', async () => {
    const root = path.join(work, 'hostile');
    writeTree(root, {
      'ok.ts': 'export const ok = true;\n',
      'image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]),
      'blob.dat': new Uint8Array([1, 2, 0, 0, 0, 3, 4, 0, 255, 0]),
      'latin1.py': new Uint8Array([
        ...Buffer.from('def caf'),
        0xe9,
        ...Buffer.from('():\n    return 1\n'),
      ]),
      'node_modules/dep/index.js': 'module.exports = 1;\n',
      '.env': 'SECRET=1\n',
    });
    writeFileSync(path.join(root, 'huge.log'), '');
    truncateSync(path.join(root, 'huge.log'), 50 * 1024 * 1024);
    symlinkSync('.', path.join(root, 'loop'));
    symlinkSync('/etc/hostname', path.join(root, 'outside'));
    const r = await runCli(['index', root, '--json', '--no-vectors', '-q']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.filesIndexed, 2, JSON.stringify(s)); // ok.ts and latin1.py (lossy decode)
    assert.equal(s.skipped['too-large'], 1);
    assert.equal(s.skipped.binary, 2);
    assert.equal(s.skipped.vendored, 1);
    assert.equal(s.skipped.secret, 1);
    assert.equal(s.skipped['symlink-loop'], 1);
    assert.equal(s.skipped['symlink-outside-root'], 1);
    // Which files, by reason (plain ignored ones are only counted; node_modules is 'vendored').
    assert.deepEqual(s.skippedPaths, {
      binary: ['blob.dat', 'image.png'],
      secret: ['.env'],
      'symlink-loop': ['loop'],
      'symlink-outside-root': ['outside'],
      'too-large': ['huge.log'],
      vendored: ['node_modules'],
    });
  });

  test('clear errors: missing dir, a file as dir, bad options', async () => {
    const missing = await runCli(['index', path.join(work, 'nope')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /error: directory not found: .*nope/);
    assert.match(missing.stderr, /hint:/);

    const file = path.join(work, 'file.txt');
    writeFileSync(file, 'x');
    const notDir = await runCli(['index', file]);
    assert.equal(notDir.code, 1);
    assert.match(notDir.stderr, /not a directory/);

    const badOpt = await runCli(['index', work, '--frobnicate']);
    assert.equal(badOpt.code, 2);
    assert.match(badOpt.stderr, /unknown option '--frobnicate'/);
    assert.match(badOpt.stderr, /Usage: codesift index/);

    const noDir = await runCli(['index']);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /missing <dir>/);

    const unknown = await runCli(['frob']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'frob'/);
  });

  test('a corrupt index file is reported with a hint, and --rebuild recovers', async () => {
    const root = path.join(work, 'corrupt');
    writeTree(root, { 'a.ts': 'export const a = 1;\n' });
    const indexDir = path.join(work, 'corrupt-index');
    writeTree(indexDir, {
      'index.db': 'this is not a sqlite database at all, just text. '.repeat(200),
    });
    const r = await runCli(['index', root, '--index', indexDir, '--no-vectors']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /corrupt/i);
    assert.match(r.stderr, /hint:.*--rebuild/);
    const fixed = await runCli([
      'index',
      root,
      '--index',
      indexDir,
      '--no-vectors',
      '--rebuild',
      '--json',
    ]);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.equal(JSON.parse(fixed.stdout).filesIndexed, 1);
  });

  test('npx codesift runs the workspace CLI from the repository root', async () => {
    const child = spawn('npx', ['--no-install', 'codesift', '--version'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r = await collect(child, 60_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^codesift \d+\.\d+\.\d+/m);
  });

  test('killed half-way with SIGKILL, the next run completes a consistent index', async () => {
    // The built-in model (~100 chunks/s here) makes the run long enough to kill mid-way.
    const root = path.join(work, 'killed');
    syntheticRepo(root, 300);
    const child = startCli(['index', root]);
    let stderr = '';
    let killTimer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on('data', (d) => {
        stderr += d;
        // Killed once progress shows more files done than one commit holds
        // (64): a fixed delay killed a run on a loaded machine before its
        // first commit, and the resumed run then had everything to redo.
        const done = [...stderr.matchAll(/(\d+)\/300 files/g)].map((m) => Number(m[1]));
        if (!killTimer && done.some((n) => n >= 70))
          killTimer = setTimeout(() => child.kill('SIGKILL'), 0);
      });
      child.on('close', () => resolve());
      child.on('error', reject);
    });
    assert.equal(
      child.signalCode,
      'SIGKILL',
      `the run finished before it could be killed:\n${stderr}`,
    );

    const resumed = await runCli(['index', root, '--json', '-q']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const s = JSON.parse(resumed.stdout);
    assert.ok(
      s.filesIndexed > 0 && s.filesIndexed < 300,
      `resumed run indexed ${s.filesIndexed} files`,
    );
    assert.equal(
      s.filesUnchanged,
      300 - s.filesIndexed,
      'files committed before the kill are not redone',
    );
    assert.equal(s.totals.files, 300);
    assert.equal(s.totals.vectors, s.totals.chunks, 'every chunk has its vector');

    // Chunking does not depend on the model: a clean keyword-only run gives the same chunk count.
    const cleanIndex = path.join(work, 'killed-clean');
    const clean = JSON.parse(
      (await runCli(['index', root, '--no-vectors', '--json', '-q', '--index', cleanIndex])).stdout,
    );
    assert.equal(s.totals.chunks, clean.totals.chunks);
    assert.equal(s.totals.symbols, clean.totals.symbols);
  });
});
