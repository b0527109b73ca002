import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { compileFilter } from './filters.js';

const paths = [
  'src/a.ts',
  'src/deep/b.test.ts',
  'srcx/c.ts',
  'lib/d.go',
  '.github/workflows/ci.yml',
  'vendor/e.js',
  'README.md',
  'docs/README.md',
];

function kept(filter: Parameters<typeof compileFilter>[0]): string[] {
  const f = compileFilter(filter);
  return paths.filter((p) => f.accepts === null || f.accepts(p));
}

describe('compileFilter', () => {
  it('accepts everything and pushes nothing down without a filter', () => {
    const f = compileFilter(undefined);
    assert.equal(f.accepts, null);
    assert.deepEqual(f.store, {});
    assert.equal(f.lossy, false);
  });

  it('passes languages to the store', () => {
    const f = compileFilter({ languages: ['go', ' typescript ', 'go', ''] });
    assert.deepEqual(f.store, { languages: ['go', 'typescript'] });
    assert.equal(f.accepts, null);
  });

  it('resolves language aliases and refuses an unknown language with the known ones', () => {
    const f = compileFilter({ languages: ['golang', 'Go', 'py'], excludeLanguages: ['ts'] });
    assert.deepEqual(f.store, { languages: ['go', 'python'] });
    assert.equal(f.accepts?.('src/a.ts'), false);
    for (const filter of [{ languages: ['klingon'] }, { excludeLanguages: ['klingon'] }]) {
      assert.throws(() => compileFilter(filter), {
        code: 'INVALID_ARGUMENT',
        message: /^unknown language 'klingon'; known languages: .*\bgo\b.*\bpython\b/,
      });
    }
  });

  it('turns a subtree glob into an exact store prefix', () => {
    const f = compileFilter({ include: ['src/**'] });
    assert.deepEqual(f.store.pathPrefixes, ['src/']);
    assert.equal(f.lossy, false);
    assert.deepEqual(kept({ include: ['src/**'] }), ['src/a.ts', 'src/deep/b.test.ts']);
  });

  it('narrows a deeper glob with its prefix and checks the rest itself', () => {
    const f = compileFilter({ include: ['src/**/*.test.ts'] });
    assert.deepEqual(f.store.pathPrefixes, ['src/']);
    assert.equal(f.lossy, true);
    assert.deepEqual(kept({ include: ['src/**/*.test.ts'] }), ['src/deep/b.test.ts']);
  });

  it('reads a plain path as that file or directory, not a string prefix', () => {
    assert.deepEqual(kept({ include: ['src'] }), ['src/a.ts', 'src/deep/b.test.ts']);
    assert.deepEqual(kept({ include: ['./src/'] }), ['src/a.ts', 'src/deep/b.test.ts']);
    assert.deepEqual(kept({ include: ['README.md'] }), ['README.md']);
  });

  it('matches a slash-less glob against file names at any depth', () => {
    const f = compileFilter({ include: ['*.md'] });
    assert.equal(f.store.pathPrefixes, undefined);
    assert.equal(f.lossy, true);
    assert.deepEqual(kept({ include: ['*.md'] }), ['README.md', 'docs/README.md']);
  });

  it('matches dotfiles (dot: true)', () => {
    assert.deepEqual(kept({ include: ['**/*.yml'] }), ['.github/workflows/ci.yml']);
  });

  it('ORs include patterns; pushes prefixes only when every pattern has one', () => {
    assert.deepEqual(compileFilter({ include: ['src/**', 'lib/**'] }).store.pathPrefixes, [
      'src/',
      'lib/',
    ]);
    assert.equal(compileFilter({ include: ['src/**', '**/*.go'] }).store.pathPrefixes, undefined);
    assert.deepEqual(kept({ include: ['src/**', '**/*.go'] }), [
      'src/a.ts',
      'src/deep/b.test.ts',
      'lib/d.go',
    ]);
  });

  it('narrows extension globs to the languages their files can have, still checking the glob', () => {
    const py = compileFilter({ include: ['**/*.py'] });
    assert.deepEqual(py.store, { languages: ['python'] });
    assert.equal(py.lossy, true, '.pyi files are python too');
    assert.ok(py.accepts!('a/b.py') && !py.accepts!('a/b.pyi'));
    // A well-known file name with that ending keeps its own language in the set.
    assert.deepEqual(compileFilter({ include: ['*.txt'] }).store, { languages: ['cmake', 'text'] });
    assert.deepEqual(compileFilter({ include: ['*.go', '**/*.rs'] }).store, {
      languages: ['go', 'rust'],
    });
    assert.deepEqual(compileFilter({ include: ['*.py'], languages: ['py', 'go'] }).store, {
      languages: ['python'],
    });
    // Anything but an extension glob among the includes: nothing can be pushed down.
    assert.deepEqual(compileFilter({ include: ['*.py', '**/test/**'] }).store, {});
    assert.deepEqual(compileFilter({ include: ['*.test.ts'] }).store, {});
    assert.deepEqual(compileFilter({ include: ['*.py', 'src/**'] }).store, {});
  });

  it('excludes, pushing whole directories down to the store', () => {
    const f = compileFilter({ exclude: ['vendor/**', '**/*.test.ts', 'docs'] });
    assert.deepEqual(f.store.excludePathPrefixes, ['vendor/', 'docs/']);
    assert.equal(f.lossy, true);
    assert.deepEqual(kept({ exclude: ['vendor/**', '**/*.test.ts', 'docs'] }), [
      'src/a.ts',
      'srcx/c.ts',
      'lib/d.go',
      '.github/workflows/ci.yml',
      'README.md',
    ]);
  });

  it('applies exclude after include', () => {
    assert.deepEqual(kept({ include: ['src/**'], exclude: ['**/*.test.ts'] }), ['src/a.ts']);
  });

  it('rejects empty and negated patterns', () => {
    assert.throws(
      () => compileFilter({ include: ['  '] }),
      (e) => e instanceof CodesiftError && e.code === 'INVALID_ARGUMENT',
    );
    assert.throws(
      () => compileFilter({ include: ['!src/**'] }),
      (e) => e instanceof CodesiftError && e.code === 'INVALID_ARGUMENT' && e.hint !== undefined,
    );
  });
});
