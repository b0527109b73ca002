import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCodesiftError } from './errors.js';
import {
  checkRepositoryName,
  forgetRepositories,
  type IndexLayout,
  MAX_REPOSITORY_NAME,
  placeRoot,
  repositoriesOf,
  splitRepositoryPath,
} from './repositories.js';

const invalid = (fn: () => unknown, message: RegExp) =>
  assert.throws(
    fn,
    (err: unknown) =>
      isCodesiftError(err) && err.code === 'INVALID_ARGUMENT' && message.test(err.message),
  );

test('repository names are path-like segments of safe characters', () => {
  for (const ok of [
    'api',
    'acme/api',
    'github.com/acme/api-v2',
    'a_b.c',
    'x'.repeat(MAX_REPOSITORY_NAME),
  ]) {
    assert.equal(checkRepositoryName(ok), ok);
  }
  invalid(() => checkRepositoryName(''), /empty/);
  invalid(() => checkRepositoryName('/api'), /empty segment/);
  invalid(() => checkRepositoryName('api/'), /empty segment/);
  invalid(() => checkRepositoryName('a//b'), /empty segment/);
  invalid(() => checkRepositoryName('../etc'), /'\.\.' segment/);
  invalid(() => checkRepositoryName('a/./b'), /'\.' segment/);
  invalid(() => checkRepositoryName('my repo'), /'my repo' has characters/);
  invalid(() => checkRepositoryName('a\\b'), /characters/);
  invalid(() => checkRepositoryName('x'.repeat(MAX_REPOSITORY_NAME + 1)), /longer than/);
});

const empty: IndexLayout = { root: null, repositories: {} };

test('an unnamed tree records its root, and is refused once the index holds repositories', () => {
  assert.deepEqual(placeRoot(empty, false, '/src/a'), { root: '/src/a', repositories: {} });
  assert.equal(placeRoot({ root: '/src/a', repositories: {} }, true, '/src/a'), null);
  // Another unnamed tree replaces the first (the job then deletes the first tree's files).
  assert.deepEqual(placeRoot({ root: '/src/a', repositories: {} }, true, '/src/b'), {
    root: '/src/b',
    repositories: {},
  });
  invalid(
    () => placeRoot({ root: null, repositories: { api: '/r/api', web: '/r/web' } }, true, '/src/c'),
    /holds repositories \(api, web\), so an index job must name/,
  );
});

test('repositories accumulate, and may not join an index holding an unnamed tree', () => {
  const one = placeRoot(empty, false, '/r/api', 'api');
  assert.deepEqual(one, { root: null, repositories: { api: '/r/api' } });
  const two = placeRoot(one!, true, '/r/web', 'acme/web');
  assert.deepEqual(two, { root: null, repositories: { api: '/r/api', 'acme/web': '/r/web' } });
  assert.equal(placeRoot(two!, true, '/r/api', 'api'), null, 'already recorded');
  assert.deepEqual(placeRoot(two!, true, '/moved/api', 'api')?.repositories.api, '/moved/api');
  invalid(
    () => placeRoot({ root: '/src/a', repositories: {} }, true, '/r/api', 'api'),
    /one unnamed tree \(\/src\/a\)/,
  );
  // An index whose unnamed tree was emptied (or never written) takes repositories.
  assert.deepEqual(placeRoot({ root: '/src/a', repositories: {} }, false, '/r/api', 'api'), one);
  invalid(() => placeRoot(two!, true, '/r/x', 'acme'), /overlaps repository 'acme\/web'/);
  invalid(() => placeRoot(two!, true, '/r/x', 'api/v2'), /overlaps repository 'api'/);
  invalid(() => placeRoot(two!, true, '/r/x', 'bad name'), /invalid repository name/);
});

test('an indexed path splits into its repository and the path inside it', () => {
  const repos = { api: '/r/api', 'acme/web': '/r/web' };
  assert.deepEqual(splitRepositoryPath(repos, 'acme/web/src/a.ts'), {
    repository: 'acme/web',
    root: '/r/web',
    path: 'src/a.ts',
  });
  assert.deepEqual(splitRepositoryPath(repos, 'api/x.go'), {
    repository: 'api',
    root: '/r/api',
    path: 'x.go',
  });
  assert.equal(splitRepositoryPath(repos, 'apix/x.go'), null);
  assert.equal(splitRepositoryPath(repos, 'acme/other/a.ts'), null);
  assert.equal(splitRepositoryPath({}, 'api/x.go'), null);
});

test('the repositories removed paths belonged to, and a layout without some of them', () => {
  const layout: IndexLayout = { root: null, repositories: { api: '/r/api', web: '/r/web' } };
  assert.deepEqual(
    repositoriesOf(layout.repositories, ['api/a.ts', 'api/b.ts', 'other/x', 'web/c']).sort(),
    ['api', 'web'],
  );
  assert.deepEqual(repositoriesOf(layout.repositories, ['other/x']), []);
  assert.deepEqual(forgetRepositories(layout, ['api']), {
    root: null,
    repositories: { web: '/r/web' },
  });
  assert.equal(forgetRepositories(layout, ['nope']), null);
  assert.deepEqual(forgetRepositories(layout, ['api', 'web']), { root: null, repositories: {} });
});
