import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { scan } from './scan.js';
import { makeTree } from './testing/make-tree.js';

const paths = (r: { files: { path: string }[] }) => r.files.map((f) => f.path);
const skipsOf = (r: { skippedFiles: { path: string; reason: string }[] }, reason: string) =>
  r.skippedFiles.filter((s) => s.reason === reason).map((s) => s.path);

test('nested .gitignore files apply relative to their own directory, with negations', async (t) => {
  const root = makeTree(t, {
    '.gitignore': '*.log\nlogs/\n',
    'a.log': '',
    'local.txt': 'root-level local.txt is not matched by sub/.gitignore',
    'logs/x.txt': '',
    'logs/y.txt': '',
    'sub/.gitignore': '!keep.log\n/local.txt\n',
    'sub/keep.log': '',
    'sub/other.log': '',
    'sub/local.txt': '',
    'sub/deeper/local.txt': 'anchored pattern only covers sub/local.txt',
    'pkg/.gitignore': '!logs/\n',
    'pkg/logs/today.txt': '',
  });
  const result = await scan({ root });
  assert.deepEqual(paths(result), [
    '.gitignore',
    'local.txt',
    'pkg/.gitignore',
    'pkg/logs/today.txt',
    'sub/.gitignore',
    'sub/deeper/local.txt',
    'sub/keep.log',
  ]);
  // a.log, logs/ (one directory, counted once), sub/other.log, sub/local.txt
  assert.equal(result.skipped.ignored, 4);
  assert.deepEqual(result.skippedFiles, [], 'plain ignores are counted, not listed');
});

test('.codesiftignore works like .gitignore, nested too, and wins within its directory', async (t) => {
  const root = makeTree(t, {
    '.gitignore': 'gen/\n',
    '.codesiftignore': 'notes.md\n!gen/\n',
    'notes.md': '',
    'readme.md': '',
    'gen/api.ts': '',
    'docs/.codesiftignore': 'draft-*\n',
    'docs/draft-1.md': '',
    'docs/final.md': '',
  });
  const result = await scan({ root });
  assert.deepEqual(paths(result), [
    '.codesiftignore',
    '.gitignore',
    'docs/.codesiftignore',
    'docs/final.md',
    'gen/api.ts',
    'readme.md',
  ]);
  assert.equal(result.skipped.ignored, 2);
});

test('extraIgnore patterns apply from the root and outrank ignore files', async (t) => {
  const root = makeTree(t, {
    '.gitignore': '!fixture.snap\n',
    'fixture.snap': '',
    'a.ts': '',
    'lib/b.snap': '',
  });
  const result = await scan({ root, extraIgnore: ['*.snap'] });
  assert.deepEqual(paths(result), ['.gitignore', 'a.ts']);
  assert.equal(result.skipped.ignored, 2);
});

test('binary, vendored, generated and secret files are skipped and reported by reason', async (t) => {
  const root = makeTree(t, {
    'src/app.ts': 'export {};',
    'img/logo.png': '',
    'node_modules/dep/index.js': '',
    'vendor/lib.go': '',
    'dist/app.js': '',
    'target/debug/x': '',
    'yarn.lock': '',
    'app.min.js': '',
    'api_pb2.py': '',
    '.env': 'TOKEN=x',
    '.env.example': 'TOKEN=',
    'certs/server.pem': '',
    '.github/workflows/ci.yml': 'on: push',
    '.git/HEAD': 'ref: refs/heads/main',
    '.git/config': '',
    '.codesift/index.db': 'an index kept inside the tree it indexes',
    'pkg/.codesift/index.db': '',
  });
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['.env.example', '.github/workflows/ci.yml', 'src/app.ts']);
  assert.deepEqual(result.skipped, { binary: 1, vendored: 2, generated: 5, secret: 2 });
  assert.deepEqual(skipsOf(result, 'vendored'), ['node_modules', 'vendor']);
  assert.deepEqual(skipsOf(result, 'generated'), [
    'api_pb2.py',
    'app.min.js',
    'dist',
    'target',
    'yarn.lock',
  ]);
  assert.deepEqual(skipsOf(result, 'secret'), ['.env', 'certs/server.pem']);
  assert.deepEqual(skipsOf(result, 'binary'), ['img/logo.png']);
  assert.equal(result.skippedFiles.find((s) => s.path === 'dist')?.detail, 'directory');

  const opened = await scan({ root, includeVendored: true, includeSecrets: true });
  assert.ok(paths(opened).includes('node_modules/dep/index.js'));
  assert.ok(paths(opened).includes('vendor/lib.go'));
  assert.ok(paths(opened).includes('.env'));
  assert.ok(!paths(opened).includes('dist/app.js'), 'includeVendored does not open build output');
});

test('an explicit negation overrides the built-in lists, except for secrets', async (t) => {
  const root = makeTree(t, {
    '.codesiftignore': '!build/\n!yarn.lock\n!.env\n',
    'build/gen.ts': '',
    'yarn.lock': '',
    '.env': '',
  });
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['.codesiftignore', 'build/gen.ts', 'yarn.lock']);
  assert.deepEqual(result.skipped, { secret: 1 });
});

test('excludeDirs are skipped silently, whichever spelling of the path is given', async (t) => {
  const root = makeTree(t, { '.codesift/index.db': '', 'a.ts': '', 'other/b.ts': '' });
  const result = await scan({
    root,
    excludeDirs: [path.join(root, '.codesift'), `${root}/other/../other`],
  });
  assert.deepEqual(paths(result), ['a.ts']);
  assert.deepEqual(result.skipped, {});
});

test('files over maxFileBytes are too-large from stat alone', async (t) => {
  const root = makeTree(t, { 'small.ts': 'x', 'edge.ts': 'x'.repeat(100), 'huge.ts': '' });
  // Sparse: 50 MB of size without 50 MB of writing.
  truncateSync(path.join(root, 'huge.ts'), 50 * 1024 * 1024);
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['edge.ts', 'small.ts']);
  assert.equal(result.skipped['too-large'], 1);
  assert.match(result.skippedFiles[0]?.detail ?? '', /^52428800 bytes/);

  const tight = await scan({ root, maxFileBytes: 100 });
  assert.deepEqual(paths(tight), ['edge.ts', 'small.ts'], 'the limit itself is allowed');
  const tighter = await scan({ root, maxFileBytes: 99 });
  assert.deepEqual(paths(tighter), ['small.ts']);
});

test('results carry POSIX paths, absolute paths, stat info and language, sorted', async (t) => {
  const root = makeTree(t, {
    'b/z.py': 'print(1)\n',
    'a.ts': 'let a;',
    'B.md': '# t',
    Dockerfile: '',
  });
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['B.md', 'Dockerfile', 'a.ts', 'b/z.py']);
  const py = result.files[3];
  assert.equal(py?.absPath, path.join(root, 'b', 'z.py'));
  assert.equal(py?.size, 9);
  assert.equal(py?.language, 'python');
  assert.ok((py?.mtimeMs ?? 0) > 0);
  assert.equal(result.files[1]?.language, 'dockerfile');
});

test('a directory symlink back to an ancestor, or to itself, is a loop and the scan ends', async (t) => {
  const root = makeTree(t, { 'sub/a.ts': '' });
  symlinkSync('..', path.join(root, 'sub', 'up'));
  symlinkSync('.', path.join(root, 'self'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['sub/a.ts']);
  assert.deepEqual(skipsOf(result, 'symlink-loop'), ['self', 'sub/up']);
});

test('a file symlink cycle (a -> b -> a) is a loop', async (t) => {
  const root = makeTree(t, { 'ok.ts': '' });
  symlinkSync('b', path.join(root, 'a'));
  symlinkSync('a', path.join(root, 'b'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['ok.ts']);
  assert.deepEqual(skipsOf(result, 'symlink-loop'), ['a', 'b']);
});

test('directory links between siblings terminate and each target is followed once', async (t) => {
  const root = makeTree(t, { 'a/one.ts': '', 'b/two.ts': '' });
  symlinkSync('../b', path.join(root, 'a', 'to-b'));
  symlinkSync('../a', path.join(root, 'b', 'to-a'));
  const result = await scan({ root });
  // Each link is followed once from outside its target; inside, the link back
  // to the directory being walked is the loop.
  assert.deepEqual(skipsOf(result, 'symlink-loop'), ['a/to-b/to-a', 'b/to-a/to-b']);
  // And each file is indexed once, under its own path.
  assert.deepEqual(paths(result), ['a/one.ts', 'b/two.ts']);
  assert.deepEqual(skipsOf(result, 'duplicate'), ['a/to-b/two.ts', 'b/to-a/one.ts']);
});

test('symlinks pointing outside the root are refused', async (t) => {
  const outside = mkdtempSync(path.join(tmpdir(), 'codesift-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(path.join(outside, 'secret.ts'), 'x');
  const root = makeTree(t, { 'in.ts': '' });
  symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'file-link.ts'));
  symlinkSync(outside, path.join(root, 'dir-link'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['in.ts']);
  assert.deepEqual(skipsOf(result, 'symlink-outside-root'), ['dir-link', 'file-link.ts']);
});

test('a file reached through a symlink inside the root is indexed once, under its own path', async (t) => {
  const root = makeTree(t, { 'real/x.ts': 'x' });
  symlinkSync('real', path.join(root, 'linked'));
  symlinkSync('real/x.ts', path.join(root, 'x-link.ts'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['real/x.ts']);
  assert.deepEqual(
    result.skippedFiles.map((s) => [s.path, s.reason, s.detail]),
    [
      ['linked/x.ts', 'duplicate', 'same file as real/x.ts'],
      ['x-link.ts', 'duplicate', 'same file as real/x.ts'],
    ],
  );
});

test('a symlink into an ignored directory is walked under the link path', async (t) => {
  const root = makeTree(t, { '.gitignore': 'build/\n', 'build/docs/guide.md': '# g', 'b.ts': '' });
  symlinkSync('build/docs', path.join(root, 'docs'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['.gitignore', 'b.ts', 'docs/guide.md']);
  const guide = result.files.find((f) => f.path === 'docs/guide.md');
  assert.equal(guide?.absPath, path.join(root, 'docs', 'guide.md'));
  assert.equal(guide?.size, 3);
});

test('a second link to the same directory is not walked again', async (t) => {
  const root = makeTree(t, { 'real/x.ts': 'x' });
  symlinkSync('real', path.join(root, 'l1'));
  symlinkSync('real', path.join(root, 'l2'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['real/x.ts']);
  assert.deepEqual(skipsOf(result, 'symlink-loop'), ['l2']);
  assert.deepEqual(skipsOf(result, 'duplicate'), ['l1/x.ts']);
  const l2 = result.skippedFiles.find((s) => s.path === 'l2');
  assert.match(l2?.detail ?? '', /already walked through l1/);
});

test('a dangling symlink is unreadable with a detail', async (t) => {
  const root = makeTree(t, { 'a.ts': '' });
  symlinkSync('missing.ts', path.join(root, 'dangling.ts'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['a.ts']);
  assert.deepEqual(result.skippedFiles, [
    { path: 'dangling.ts', reason: 'unreadable', detail: 'dangling symlink to missing.ts' },
  ]);
});

test('a symlink whose target is a secret is skipped even under a harmless name', async (t) => {
  const root = makeTree(t, { 'keys/id_rsa': 'KEY' });
  symlinkSync('keys/id_rsa', path.join(root, 'notes.txt'));
  const result = await scan({ root });
  assert.deepEqual(paths(result), []);
  assert.equal(result.skipped.secret, 2);
});

test('an unreadable directory is counted and the scan goes on', async (t) => {
  const root = makeTree(t, { 'locked/a.ts': '', 'open/b.ts': '' });
  const locked = path.join(root, 'locked');
  chmodSync(locked, 0o000);
  let blocked = false;
  let result: Awaited<ReturnType<typeof scan>>;
  try {
    try {
      readdirSync(locked);
    } catch {
      blocked = true;
    }
    if (!blocked) {
      t.skip(
        'permissions do not block reads here (running as root); cannot make a directory unreadable',
      );
      return;
    }
    result = await scan({ root });
  } finally {
    // Before the tree's own cleanup, which could not delete inside it otherwise.
    chmodSync(locked, 0o755);
  }
  assert.deepEqual(paths(result), ['open/b.ts']);
  assert.equal(result.skipped.unreadable, 1);
  assert.equal(result.skippedFiles[0]?.path, 'locked');
  assert.match(result.skippedFiles[0]?.detail ?? '', /EACCES/);
});

test('an unreadable .gitignore is reported once and the scan goes on', async (t) => {
  const root = makeTree(t, { '.gitignore': '*.ts\n', 'a.ts': '' });
  const gitignore = path.join(root, '.gitignore');
  chmodSync(gitignore, 0o000);
  try {
    readFileSync(gitignore);
    t.skip('permissions do not block reads here (running as root); cannot make a file unreadable');
    return;
  } catch {
    // Expected: the file is unreadable for this user.
  }
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['a.ts']);
  assert.equal(result.skipped.unreadable, 1);
  assert.match(result.skippedFiles[0]?.detail ?? '', /^ignore rules not applied: EACCES/);
});

test('a file name that is not valid UTF-8 is unreadable rather than a crash', async (t) => {
  const root = makeTree(t, { 'ok.ts': '' });
  try {
    writeFileSync(Buffer.from([...Buffer.from(`${root}/bad`), 0xff, ...Buffer.from('.ts')]), '');
  } catch {
    t.skip('this file system refuses names that are not valid UTF-8');
    return;
  }
  const result = await scan({ root });
  assert.deepEqual(paths(result), ['ok.ts']);
  assert.equal(result.skipped.unreadable, 1);
  assert.match(result.skippedFiles[0]?.detail ?? '', /ENOENT/);
});

test('skippedFiles is capped at 10,000 while the counts stay exact', async (t) => {
  const root = makeTree(t);
  mkdirSync(path.join(root, 'img'));
  for (let i = 0; i < 10_005; i++) writeFileSync(path.join(root, 'img', `${i}.png`), '');
  const result = await scan({ root });
  assert.equal(result.skipped.binary, 10_005);
  assert.equal(result.skippedFiles.length, 10_000);
});

test('a missing root and a file as root are reported as CodesiftErrors', async (t) => {
  const root = makeTree(t, { 'file.ts': '' });
  await assert.rejects(scan({ root: path.join(root, 'nope') }), (err: unknown) => {
    return err instanceof CodesiftError && err.code === 'ENOENT_ROOT' && err.hint !== undefined;
  });
  await assert.rejects(scan({ root: path.join(root, 'file.ts') }), (err: unknown) => {
    return err instanceof CodesiftError && err.code === 'NOT_A_DIRECTORY';
  });
});

test('an aborted signal stops the scan', async (t) => {
  const root = makeTree(t, { 'a.ts': '' });
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(scan({ root, signal: controller.signal }), { name: 'AbortError' });
});

test('scans a 5,000-file tree completely (speed is measured by npm run bench)', async (t) => {
  const root = makeTree(t);
  for (let d = 0; d < 100; d++) {
    const dir = path.join(root, `pkg${d}`, 'src');
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 50; f++) writeFileSync(path.join(dir, `file${f}.ts`), 'export {};\n');
  }
  writeFileSync(path.join(root, '.gitignore'), '*.log\n');
  await scan({ root }); // warm the cache as a re-index would find it
  const started = performance.now();
  const result = await scan({ root });
  const ms = performance.now() - started;
  assert.equal(result.files.length, 5001);
  t.diagnostic(`scan of 5,000 files took ${ms.toFixed(1)} ms`);
});
