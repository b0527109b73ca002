// The CLI as a user installs it (README's Install): `scripts/pack.mjs` (what
// `npm run pack` runs after the build) writes the tarball, README's own
// `npm install -g` command installs it into an empty prefix with the
// third-party packages from the registry, and the installed `codesift` runs
// from a temporary directory outside this checkout, so nothing can resolve
// from the workspace's node_modules: index with the built-in model, search,
// and the MCP server driven by the MCP SDK's client.
import assert from 'node:assert/strict';
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LOCAL_MCP_TOOLS, repoRoot } from '../support/cli.js';
import { connectStdio } from '../support/mcp-stdio.js';
import { markedBlock, readme, shellCommands } from '../support/readme.js';
import { GRAPH_TS, writeTree } from '../support/tree.js';

/** Where the package carries the built-in model, and where the build wrote it. */
const MODEL_DIR = 'node_modules/@codesift/models/dist/model';
const BUILT_MODELS = path.join(repoRoot, 'libs', 'models', 'dist', 'model');

/**
 * The environment of a user's shell: no npm_* variables from the `npm test`
 * running this, no ONNXRUNTIME_NODE_INSTALL (CI sets it for the workspace's
 * install; README's command must work without it), and this Node (22)
 * first on PATH, since the installed bin starts with `#!/usr/bin/env node`.
 */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  const notAUsers = /^(npm_|ONNXRUNTIME_NODE_INSTALL)|^NODE_(PATH|OPTIONS)$/i;
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !notAUsers.test(k)) env[k] = v;
  }
  env.PATH = [path.dirname(process.execPath), env.PATH].filter(Boolean).join(path.delimiter);
  env.NO_COLOR = '1';
  return env;
}

function run(cmd: string, args: string[], cwd: string, timeout: number): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env: userEnv(), encoding: 'utf8', timeout });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}\n${r.stderr}`);
  return r;
}

/**
 * npm's warnings, except those about this machine's own npm config (an
 * unknown key in ~/.npmrc is the machine's, not the package's).
 */
function npmWarnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => /^npm warn/i.test(l) && !/Unknown (user|env|global) config/.test(l));
}

/** README's `npm install -g` command, its tarball glob replaced by the packed files. */
function readmeInstallArgs(tarballs: string[]): string[] {
  const commands = shellCommands(markedBlock(readme(), 'install').text);
  const install = commands.find((c) => c.slice(0, 3).join(' ') === 'npm install -g');
  assert.ok(install, "README's Install block has an npm install -g command");
  return install.slice(1).flatMap((w) => (w.endsWith('.tgz') ? tarballs : [w]));
}

describe('npm run pack, installed as README says, run from anywhere', () => {
  let work: string;
  let tarballs: string[];
  let prefix: string;
  let bin: string;
  let repo: string;
  let elsewhere: string;

  before(
    () => {
      work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-install-e2e-')));
      prefix = path.join(work, 'prefix');
      bin = path.join(prefix, 'bin', 'codesift');
      repo = path.join(work, 'repo');
      elsewhere = path.join(work, 'elsewhere');
      mkdirSync(elsewhere);
      const out = path.join(work, 'pack');
      const packed = run(
        process.execPath,
        [path.join(repoRoot, 'scripts', 'pack.mjs'), '--out', out],
        repoRoot,
        120_000,
      );
      assert.deepEqual(npmWarnings(packed.stderr), [], 'npm pack printed warnings');
      tarballs = readdirSync(out)
        .filter((f) => f.endsWith('.tgz'))
        .map((f) => path.join(out, f));
      assert.deepEqual(tarballs, [packed.stdout.trim()]);
      const installed = run(
        'npm',
        [...readmeInstallArgs(tarballs), '--prefix', prefix],
        elsewhere,
        180_000,
      );
      assert.deepEqual(npmWarnings(installed.stderr), [], 'npm install -g printed warnings');
      writeTree(repo, {
        'src/graph.ts': GRAPH_TS,
        'src/store.go':
          'package store\n\n// Put stores a value in the key-value map.\nfunc Put(key, value string) {}\n',
        'config_loader.py':
          'import json\n\n\ndef parse_config(path):\n    """Reads the JSON settings file."""\n    with open(path) as f:\n        return json.load(f)\n',
      });
    },
    { timeout: 300_000 },
  );
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the tarball holds the CLI, its workspace packages and the model; no tests, maps or types', () => {
    const entries = run('tar', ['-tzf', tarballs[0]!], work, 60_000).stdout.split('\n');
    const pkg = JSON.parse(
      run('tar', ['-xzOf', tarballs[0]!, 'package/package.json'], work, 60_000).stdout,
    ) as Record<string, unknown>;
    assert.equal(pkg.name, 'codesift');
    assert.deepEqual(pkg.bin, { codesift: './bin/codesift.js' });
    assert.deepEqual(pkg.engines, { node: '>=22' });
    assert.equal(pkg.private, undefined, 'a publishable package');
    const bundled = pkg.bundleDependencies as string[];
    assert.ok(bundled.includes('@codesift/models') && bundled.includes('@codesift/mcp-bridge'));
    for (const name of bundled) {
      assert.ok(entries.includes(`package/node_modules/${name}/package.json`), name);
    }
    const models = readdirSync(BUILT_MODELS);
    assert.ok(models.some((f) => f.endsWith('.onnx')));
    for (const f of models) assert.ok(entries.includes(`package/${MODEL_DIR}/${f}`), f);
    assert.ok(entries.includes('package/bin/codesift.js'));
    // The CLI's bundle, which the launcher runs; without the lists that only a
    // workspace that rebuilds (stamps.json) or its tests (modules.json) read.
    assert.ok(entries.includes('package/dist/bundle/main.js'));
    for (const list of ['stamps.json', 'modules.json']) {
      assert.ok(!entries.includes(`package/dist/bundle/${list}`), list);
    }
    const unwanted = entries.filter((e) =>
      /\.test\.js$|\.map$|\.d\.ts$|tsbuildinfo|\/testing\/|\/src\//.test(e),
    );
    assert.deepEqual(unwanted, []);
  });

  test('the install holds the built model beside the code', () => {
    for (const f of readdirSync(BUILT_MODELS)) {
      const installed = path.join(prefix, 'lib', 'node_modules', 'codesift', MODEL_DIR, f);
      assert.equal(statSync(installed).size, statSync(path.join(BUILT_MODELS, f)).size, f);
    }
  });

  test('codesift index with the built-in model, then search, from another directory', () => {
    const indexed = JSON.parse(
      run(bin, ['index', repo, '--json', '-q'], elsewhere, 120_000).stdout,
    );
    assert.equal(indexed.filesIndexed, 3);
    assert.equal(indexed.embedder, 'builtin:use-lite-512');
    assert.ok(indexed.vectors > 0 && indexed.vectors === indexed.chunks, JSON.stringify(indexed));
    const search = (cwd: string, ...args: string[]) =>
      JSON.parse(run(bin, ['search', ...args, '--json'], cwd, 60_000).stdout) as {
        results: { path: string }[];
      };
    const words = search(elsewhere, '--index', repo, 'where are edges added to the graph');
    assert.equal(words.results[0]?.path, 'src/graph.ts');
    // No word of this question is in the code: only the vectors can find it.
    const question = 'connect two vertices';
    assert.deepEqual(search(repo, '--keyword-only', question).results, []);
    assert.equal(search(repo, question).results[0]?.path, 'src/graph.ts');
  });

  test('codesift mcp over stdio: the MCP SDK client lists the tools and searches', async () => {
    const { client, log } = await connectStdio(
      { command: bin, args: ['mcp', '--root', repo], cwd: elsewhere, env: userEnv() },
      'install-e2e',
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), LOCAL_MCP_TOOLS, log());
      const r = (await client.callTool({
        name: 'search_code',
        arguments: { query: 'insertEdgeBetween' },
      })) as CallToolResult;
      assert.equal(r.isError, undefined, log());
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      assert.match(text, /src\/graph\.ts/);
    } finally {
      await client.close();
    }
  });
});
