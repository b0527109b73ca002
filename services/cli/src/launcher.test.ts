// bin/codesift.js runs the build's bundle of the CLI only while it is
// current, and the modules as compiled otherwise: checked on a copy of the
// launcher in a tree of stand-in modules that say which of them ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const launcher = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'bin',
  'codesift.js',
);

/** A stand-in entry module whose main() prints `name`. */
const entry = (name: string) =>
  `export async function main() { process.stdout.write(${JSON.stringify(name)}); return 0; }\n`;

describe('the launcher runs the bundle only while it is current', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'codesift-launcher-'));
  const bundle = path.join(work, 'dist', 'bundle');
  // A package's tsc build-info file, which every `tsc -b` of it rewrites.
  const stamp = path.join(work, 'dist', 'tsconfig.tsbuildinfo');
  after(() => rmSync(work, { recursive: true, force: true }));

  // Compiled an hour ago, the bundle and its list of stamps made after.
  beforeEach(() => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(path.join(work, 'bin'), { recursive: true });
    mkdirSync(bundle, { recursive: true });
    copyFileSync(launcher, path.join(work, 'bin', 'codesift.js'));
    writeFileSync(path.join(work, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(work, 'dist', 'main.js'), entry('compiled'));
    writeFileSync(stamp, '{}');
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(stamp, hourAgo, hourAgo);
    writeFileSync(path.join(bundle, 'main.js'), entry('bundle'));
    writeFileSync(
      path.join(bundle, 'stamps.json'),
      JSON.stringify({ stamps: ['../tsconfig.tsbuildinfo'] }),
    );
  });

  const run = (env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [path.join(work, 'bin', 'codesift.js')], {
      encoding: 'utf8',
      env: { ...process.env, CODESIFT_NO_BUNDLE: undefined, ...env },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };

  test('a bundle no older than the packages it was made from runs', () => {
    assert.equal(run(), 'bundle');
  });

  test('a package rebuilt since (tsc -b of one package) sends it to the compiled modules', () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(stamp, later, later);
    assert.equal(run(), 'compiled');
  });

  test('a stamp that is gone, or an unreadable list, does too', () => {
    unlinkSync(stamp);
    assert.equal(run(), 'compiled');
    writeFileSync(stamp, '');
    writeFileSync(path.join(bundle, 'stamps.json'), '{"stamps": [');
    assert.equal(run(), 'compiled');
  });

  test('without a list (an installed package) the bundle runs; without a bundle the compiled modules', () => {
    unlinkSync(path.join(bundle, 'stamps.json'));
    assert.equal(run(), 'bundle');
    rmSync(bundle, { recursive: true });
    assert.equal(run(), 'compiled');
  });

  test('CODESIFT_NO_BUNDLE=1 runs the compiled modules', () => {
    assert.equal(run({ CODESIFT_NO_BUNDLE: '1' }), 'compiled');
  });
});
