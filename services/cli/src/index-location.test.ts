import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  cachedIndexPath,
  existingIndexOf,
  findIndexUpwards,
  indexPlaceFor,
} from './index-location.js';
import { userCacheDir } from './user-cache-dir.js';

const work = mkdtempSync(path.join(tmpdir(), 'codesift-index-location-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('the user cache directory follows the override, then the platform convention', () => {
  const home = '/home/u';
  assert.equal(userCacheDir({ CODESIFT_CACHE_DIR: '/c' }, 'linux', home), '/c');
  assert.equal(userCacheDir({ XDG_CACHE_HOME: '/x' }, 'linux', home), '/x/codesift');
  assert.equal(userCacheDir({}, 'linux', home), '/home/u/.cache/codesift');
  // A relative XDG_CACHE_HOME is invalid (XDG spec): it would move with the working directory.
  assert.equal(userCacheDir({ XDG_CACHE_HOME: 'rel' }, 'linux', home), '/home/u/.cache/codesift');
  assert.equal(userCacheDir({}, 'darwin', home), '/home/u/Library/Caches/codesift');
  assert.equal(
    userCacheDir({ LOCALAPPDATA: '/appdata' }, 'win32', home),
    path.join('/appdata', 'codesift', 'Cache'),
  );
});

test('a cached index is keyed by the real path: readable name, short hash', () => {
  const env = { CODESIFT_CACHE_DIR: path.join(work, 'cache') };
  const repo = path.join(work, 'my repo');
  mkdirSync(repo);
  const link = path.join(work, 'link');
  symlinkSync(repo, link);
  const p = cachedIndexPath(repo, env);
  assert.match(p, /[/\\]indexes[/\\]my-repo-[0-9a-f]{12}[/\\]index\.db$/);
  assert.equal(cachedIndexPath(link, env), p, 'a symlinked spelling finds the same index');
  const other = path.join(work, 'other', 'my repo');
  mkdirSync(other, { recursive: true });
  assert.notEqual(cachedIndexPath(other, env), p, 'two trees of one name get two indexes');
});

test('an index in the tree wins; the cached one is found from the root and below', () => {
  const env = { CODESIFT_CACHE_DIR: path.join(work, 'cache2') };
  const repo = path.join(work, 'repo2');
  mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
  assert.equal(existingIndexOf(repo, env), null);
  assert.equal(findIndexUpwards(path.join(repo, 'src', 'deep'), env), null);

  const cached = cachedIndexPath(repo, env);
  mkdirSync(path.dirname(cached), { recursive: true });
  writeFileSync(cached, 'x');
  assert.equal(existingIndexOf(repo, env), cached);
  assert.equal(findIndexUpwards(path.join(repo, 'src', 'deep'), env), cached);
  assert.deepEqual(indexPlaceFor(repo, env), {
    indexPath: cached,
    inCacheBecause: 'it was built there',
  });

  const inTree = path.join(repo, '.codesift', 'index.db');
  mkdirSync(path.dirname(inTree));
  writeFileSync(inTree, 'x');
  assert.equal(existingIndexOf(repo, env), inTree);
  assert.equal(findIndexUpwards(path.join(repo, 'src'), env), inTree);
  assert.deepEqual(indexPlaceFor(repo, env), { indexPath: inTree, inCacheBecause: null });
});

test('a new index goes into a writable tree, not the cache', () => {
  const env = { CODESIFT_CACHE_DIR: path.join(work, 'cache3') };
  const repo = path.join(work, 'repo3');
  mkdirSync(repo);
  assert.deepEqual(indexPlaceFor(repo, env), {
    indexPath: path.join(repo, '.codesift', 'index.db'),
    inCacheBecause: null,
  });
});
