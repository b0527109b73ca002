import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkScanRoot, parseScanRoots, scanRootsFromEnv } from './scan-roots.js';

describe('scan roots', () => {
  let dir: string;
  let scan: string;
  before(() => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-scan-roots-')));
    scan = path.join(dir, 'scan');
    mkdirSync(path.join(scan, 'repo'), { recursive: true });
    mkdirSync(path.join(dir, 'private'));
    writeFileSync(path.join(scan, 'file.txt'), 'x');
    symlinkSync(path.join(dir, 'private'), path.join(scan, 'escape'));
    symlinkSync(path.join(scan, 'repo'), path.join(dir, 'outside-link-to-repo'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('read from CODESIFT_SCAN_ROOTS, else CODESIFT_SCAN_ROOT, else the fallback', () => {
    assert.deepEqual(parseScanRoots(` /a ${path.delimiter}${path.delimiter} b `, '/base'), [
      '/a',
      '/base/b',
    ]);
    assert.deepEqual(
      scanRootsFromEnv(
        { CODESIFT_SCAN_ROOTS: `/a${path.delimiter}/b`, CODESIFT_SCAN_ROOT: '/c' },
        '/d',
      ),
      ['/a', '/b'],
    );
    assert.deepEqual(scanRootsFromEnv({ CODESIFT_SCAN_ROOT: '/c' }, '/d'), ['/c']);
    assert.deepEqual(scanRootsFromEnv({ CODESIFT_SCAN_ROOTS: ' ' }, '/d'), ['/d']);
  });

  test('a root inside, by any path that really is inside, is allowed', () => {
    const repo = path.join(scan, 'repo');
    assert.deepEqual(checkScanRoot(repo, [scan]), { root: repo, exists: true });
    assert.equal(checkScanRoot('repo', [scan]).root, repo);
    assert.equal(checkScanRoot('', [scan]).root, scan);
    // A link from outside to a directory inside: what is scanned is inside.
    assert.equal(checkScanRoot(path.join(dir, 'outside-link-to-repo'), [scan]).root, repo);
    assert.equal(checkScanRoot(repo, ['/nowhere', scan]).root, repo);
  });

  test('.., absolute paths and symlinks out are PERMISSION_DENIED', () => {
    for (const bad of [
      '..',
      '../private',
      'repo/../..',
      '/',
      path.join(dir, 'private'),
      'escape',
    ]) {
      assert.throws(() => checkScanRoot(bad, [scan]), { code: 'PERMISSION_DENIED' }, bad);
    }
    assert.throws(() => checkScanRoot('repo', []), { code: 'PERMISSION_DENIED' });
  });

  test('missing roots: refused here, passed on where the disk is elsewhere (still confined)', () => {
    assert.throws(() => checkScanRoot('missing', [scan]), { code: 'ENOENT_ROOT' });
    assert.throws(() => checkScanRoot('file.txt', [scan]), { code: 'NOT_A_DIRECTORY' });
    assert.deepEqual(checkScanRoot('/checkouts/api', ['/checkouts'], { mayBeElsewhere: true }), {
      root: '/checkouts/api',
      exists: false,
    });
    assert.throws(
      () => checkScanRoot('/checkouts/../etc', ['/checkouts'], { mayBeElsewhere: true }),
      {
        code: 'PERMISSION_DENIED',
      },
    );
  });
});
