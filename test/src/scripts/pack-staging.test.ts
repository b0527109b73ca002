// scripts/pack/*.mjs, the parts of `npm run pack` that decide what the
// package holds: which workspace packages it bundles, which third-party
// versions it declares (and the inputs it refuses), and which built files of
// a package ship. The install itself is test/src/e2e/install-pack.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

interface Manifest {
  name: string;
  version?: string;
  dependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
  [key: string]: unknown;
}
type Packages = Map<string, { dir: string; manifest: Manifest }>;

// Imported by URL: the scripts are plain JavaScript, outside the TypeScript build.
const load = (file: string) =>
  import(pathToFileURL(path.join(repoRoot, 'scripts', 'pack', file)).href);
const workspace = (await load('workspace.mjs')) as {
  readWorkspace(root: string): Packages;
  workspaceClosure(packages: Packages, name: string): string[];
  externalDependencies(packages: Packages, names: string[]): Record<string, string>;
};
const { stagePackage } = (await load('stage.mjs')) as {
  stagePackage(
    dir: string,
    manifest: Manifest,
    dest: string,
    opts?: { extra?: string[]; overrides?: Record<string, unknown> },
  ): number;
};

function packagesOf(manifests: Manifest[]): Packages {
  return new Map(manifests.map((m) => [m.name, { dir: `/nowhere/${m.name}`, manifest: m }]));
}

describe('pack: the workspace packages and dependencies of the CLI', () => {
  const real = workspace.readWorkspace(repoRoot);

  test('bundles what the CLI needs through other packages, and nothing it does not', () => {
    const bundled = workspace.workspaceClosure(real, '@codesift/cli');
    const direct = Object.keys(real.get('@codesift/cli')!.manifest.dependencies ?? {});
    assert.ok(!direct.includes('@codesift/query') && bundled.includes('@codesift/query'));
    assert.ok(bundled.includes('@codesift/models') && bundled.includes('@codesift/mcp-bridge'));
    for (const unused of ['@codesift/cli', '@codesift/worker', '@codesift/stores-cluster']) {
      assert.ok(!bundled.includes(unused), unused);
    }
  });

  test('declares each third-party package once, at the exact version the workspace pins', () => {
    const bundled = workspace.workspaceClosure(real, '@codesift/cli');
    const deps = workspace.externalDependencies(real, ['@codesift/cli', ...bundled]);
    assert.equal(
      deps['onnxruntime-node'],
      real.get('@codesift/models')!.manifest.dependencies!['onnxruntime-node'],
    );
    assert.ok(
      deps['tree-sitter-go'] && deps['better-sqlite3'] && deps['@modelcontextprotocol/sdk'],
    );
    assert.ok(Object.keys(deps).every((d) => !d.startsWith('@codesift/')));
  });

  test('refuses a version range, two versions of one package, and an unknown package', () => {
    const ranged = packagesOf([{ name: '@codesift/a', dependencies: { ajv: '^8.0.0' } }]);
    assert.throws(
      () => workspace.externalDependencies(ranged, ['@codesift/a']),
      /@codesift\/a depends on ajv@\^8\.0\.0; pin an exact version/,
    );
    const split = packagesOf([
      { name: '@codesift/a', dependencies: { ajv: '8.20.0' } },
      { name: '@codesift/b', dependencies: { ajv: '8.17.1' } },
    ]);
    assert.throws(
      () => workspace.externalDependencies(split, ['@codesift/a', '@codesift/b']),
      /@codesift\/a wants ajv@8\.20\.0 but @codesift\/b wants ajv@8\.17\.1/,
    );
    const dangling = packagesOf([
      { name: '@codesift/a', dependencies: { '@codesift/gone': '0.1.0' } },
    ]);
    assert.throws(
      () => workspace.workspaceClosure(dangling, '@codesift/a'),
      /@codesift\/gone is not a package of libs\/ or services\//,
    );
  });
});

describe('pack: the files of one staged package', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'codesift-pack-stage-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  test('ships compiled code with a source and built assets; no tests, helpers, maps, types or leftovers', () => {
    const pkg = path.join(work, 'pkg');
    writeTree(pkg, {
      'src/index.ts': '',
      'src/deep/util.ts': '',
      'dist/index.js': '',
      'dist/index.js.map': '',
      'dist/index.d.ts': '',
      'dist/index.d.ts.map': '',
      'dist/deep/util.js': '',
      'dist/deep/util.test.js': '',
      'dist/testing/fake.js': '',
      'dist/removed-source.js': '',
      'dist/tsconfig.tsbuildinfo': '',
      'dist/model/weights.onnx': 'weights',
      // The CLI's bundle: code without sources of its own, and the list the
      // launcher checks for staleness, which an install never needs.
      'dist/bundle/main.js': '',
      'dist/bundle/chunk-A1.js': '',
      'dist/bundle/stamps.json': '{}',
      'dist/bundle/modules.json': '{}',
    });
    const dest = path.join(work, 'staged');
    const manifest: Manifest = {
      name: '@codesift/x',
      version: '0.1.0',
      private: true,
      type: 'module',
      main: './dist/index.js',
      types: './dist/index.d.ts',
      scripts: { build: 'tsc -b' },
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './testing': { types: './dist/testing/fake.d.ts', default: './dist/testing/fake.js' },
      },
      dependencies: { '@codesift/core': '0.1.0' },
    };
    assert.equal(stagePackage(pkg, manifest, dest), 5);
    for (const kept of [
      'dist/index.js',
      'dist/deep/util.js',
      'dist/model/weights.onnx',
      'dist/bundle/main.js',
      'dist/bundle/chunk-A1.js',
    ]) {
      assert.ok(existsSync(path.join(dest, kept)), kept);
    }
    for (const left of ['dist/bundle/stamps.json', 'dist/bundle/modules.json']) {
      assert.ok(!existsSync(path.join(dest, left)), left);
    }
    const staged = JSON.parse(readFileSync(path.join(dest, 'package.json'), 'utf8')) as Manifest;
    assert.deepEqual(staged, {
      name: '@codesift/x',
      version: '0.1.0',
      type: 'module',
      main: './dist/index.js',
      exports: { '.': './dist/index.js' },
      dependencies: { '@codesift/core': '0.1.0' },
    });
  });

  test('a package that was not built is an error that says to build', () => {
    const pkg = path.join(work, 'unbuilt');
    writeTree(pkg, { 'src/index.ts': '' });
    assert.throws(
      () => stagePackage(pkg, { name: '@codesift/y' }, path.join(work, 'y')),
      /@codesift\/y has no dist\/ \(run npm run build first\)/,
    );
  });
});
