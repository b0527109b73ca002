import assert from 'node:assert/strict';
import { linkSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectCodesift } from '@codesift/grpc';
import { bundleText, SECRET_SAMPLES } from '@codesift/scanner/testing';
import { status } from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, collect, firstLine, runCli, startCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

const s = SECRET_SAMPLES;
const AWS = s['aws-access-key']!.secret;
const GHP = s['github-token']!.secret;
const PEM = s['private-key']!.secret;
const ENV_LINE = 'DB_PASSWORD=hunter2-in-dotenv';

const FILES: Record<string, string> = {
  'src/storage.py': [
    'import boto3',
    '',
    `AWS_ACCESS_KEY_ID = "${AWS}"`,
    `GITHUB_TOKEN = "${GHP}"`,
    '',
    '',
    'def open_bucket(name):',
    '    """Opens the archive bucket."""',
    '    token = get_token()',
    '    return boto3.resource("s3").Bucket(name)',
    '',
  ].join('\n'),
  'src/deploy.ts': [
    '/** Signs release manifests before upload. */',
    `const SIGNING_KEY = \`${s['private-key']!.line}\`;`,
    '',
    'export function signReleaseManifest(manifest: string): string {',
    "  const header = 'signed-by:' + manifest.length;",
    "  return [header, manifest, SIGNING_KEY.length].join('\\n');",
    '}',
    '',
    'export function verifyReleaseManifest(signed: string): boolean {',
    "  return signed.startsWith('signed-by:');",
    '}',
    '',
  ].join('\n'),
  'src/retry.ts': 'export const retryAttempts = 5;\n',
  // One long line of data in ordinary code: kept.
  'src/table.ts': `export const PRIMES = [${Array.from({ length: 600 }, (_, i) => i * 7 + 3).join(', ')}];\nexport const primeCount = PRIMES.length;\n`,
  // A renamed bundle: skipped by its content.
  'public/bundle.js': bundleText(946_000),
  '.env': `${ENV_LINE}\n`,
};

const SECRETS = [AWS, GHP, PEM];

function assertClean(where: string, text: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} holds a secret`);
  assert.ok(!text.includes(ENV_LINE), `${where} holds the .env line`);
}

function toolText(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/**
 * Secrets inside ordinary files, swapped files and a renamed bundle, through
 * the real CLI, a real gRPC server and a real MCP server over their sockets.
 */
describe('secrets, swapped files and bundles (end to end)', () => {
  let work: string;
  let root: string;

  before(async () => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-e2e-secrets-')));
    root = path.join(work, 'repo');
    writeTree(root, FILES);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('index: secrets are counted by rule, never printed; the bundle is skipped as minified', async () => {
    const r = await runCli(['index', root, '--no-vectors', '--json', '-q']);
    assert.equal(r.code, 0, r.stderr);
    assertClean('the summary', r.stdout + r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary.secretsRedacted, {
      'aws-access-key': 1,
      'github-token': 1,
      'private-key': 1,
    });
    assert.equal(summary.skipped.minified, 1);
    assert.deepEqual(summary.skippedPaths.minified, ['public/bundle.js']);
    assert.deepEqual(summary.skippedPaths.secret, ['.env']);
    assert.equal(summary.filesIndexed, 4, 'the data table and the files with secrets are indexed');

    const text = await runCli(['index', root, '--no-vectors', '--rebuild', '-q']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /skipped .*minified 1/);
    assert.match(text.stdout, /secrets aws-access-key 1, github-token 1, private-key 1 redacted/);
    assertClean('the text summary', text.stdout);
  });

  test('search: a secret is not found, and results around it show the marker', async () => {
    for (const secret of SECRETS) {
      const r = await runCli(['search', '--index', path.join(root, '.codesift'), secret, '--json']);
      assert.equal(r.code, 0, r.stderr);
      // The answer echoes the query itself; what was found must not hold it.
      assertClean(
        `search for ${secret.slice(0, 4)}…`,
        JSON.stringify(JSON.parse(r.stdout).results),
      );
    }
    const r = await runCli([
      'search',
      '--index',
      path.join(root, '.codesift'),
      'open archive bucket boto3',
      '--json',
    ]);
    const res = JSON.parse(r.stdout);
    assert.equal(res.results[0]?.path, 'src/storage.py');
    assertClean('search results', r.stdout);
    const bundle = await runCli(['search', '--index', path.join(root, '.codesift'), 'exports']);
    assert.doesNotMatch(bundle.stdout, /bundle\.js/);
  });

  test('gRPC: search and GetSnippet serve no secret; a swapped file serves nothing of its target', async () => {
    // No watch: it would re-index the swapped files before they are read.
    const index = path.join(root, '.codesift');
    const server = startCli(['serve', '--port', '0', '--json', '--index', index, '--no-watch'], {
      env: { CODESIFT_TOKEN: 'secrets-e2e' },
    });
    const exited = collect(server, 120_000);
    const client = connectCodesift(JSON.parse(await firstLine(server, 60_000)).address, {
      token: 'secrets-e2e',
    });
    try {
      const found = await client.search.search({ query: 'signReleaseManifest SIGNING_KEY' });
      assert.equal(found.results[0]?.path, 'src/deploy.ts');
      assertClean(
        'gRPC search',
        JSON.stringify(found.results, (_, v) => (typeof v === 'bigint' ? Number(v) : v)),
      );
      for (const file of ['src/storage.py', 'src/deploy.ts']) {
        const snippet = await client.search.getSnippet({
          path: file,
          range: { startLine: 1, endLine: 100 },
        });
        assert.equal(snippet.stale, false);
        assert.match(snippet.text, /\[REDACTED:/);
        assertClean(`GetSnippet ${file}`, snippet.text);
      }
      const deploy = await client.search.getSnippet({
        path: 'src/deploy.ts',
        range: { startLine: 7, endLine: 7 },
      });
      assert.equal(deploy.text, 'export function signReleaseManifest(manifest: string): string {');

      const retry = path.join(root, 'src', 'retry.ts');
      rmSync(retry);
      symlinkSync(path.join(root, '.env'), retry);
      await assert.rejects(
        client.search.getSnippet({ path: 'src/retry.ts', range: { startLine: 1, endLine: 5 } }),
        (e: unknown) =>
          (e as { code: number }).code === status.INVALID_ARGUMENT &&
          /is a symbolic link/.test((e as Error).message) &&
          !(e as Error).message.includes(ENV_LINE),
      );
      rmSync(retry);
      linkSync(path.join(root, '.env'), retry);
      const linked = await client.search.getSnippet({
        path: 'src/retry.ts',
        range: { startLine: 1, endLine: 5 },
      });
      assert.equal(linked.stale, true);
      assert.equal(linked.text, '');
    } finally {
      client.close();
      server.kill('SIGTERM');
      await exited;
      rmSync(path.join(root, 'src', 'retry.ts'), { force: true });
      writeFileSync(path.join(root, 'src', 'retry.ts'), FILES['src/retry.ts']!);
    }
  });

  test('MCP: search_code and get_snippet serve no secret; a symlink swap is refused', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp', '--index', path.join(root, '.codesift'), '--no-watch'],
      cwd: work,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'secrets-e2e', version: '0.0.0' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    try {
      const search = await call('search_code', { query: 'open archive bucket boto3' });
      assert.match(toolText(search), /src\/storage\.py/);
      assert.match(toolText(search), /REDACTED/);
      assertClean('search_code', toolText(search) + JSON.stringify(search.structuredContent));
      for (const secret of SECRETS) {
        const r = await call('search_code', { query: secret });
        const { results } = r.structuredContent as { results: unknown[] };
        assertClean('search_code for a secret', JSON.stringify(results));
      }
      const snippet = await call('get_snippet', {
        path: 'src/storage.py',
        start_line: 1,
        end_line: 20,
      });
      assert.equal(snippet.isError, undefined, toolText(snippet));
      assert.match(toolText(snippet), /AWS_ACCESS_KEY_ID = "\[REDACTED:aws-access-key\]"/);
      assertClean('get_snippet', toolText(snippet) + JSON.stringify(snippet.structuredContent));

      const retry = path.join(root, 'src', 'retry.ts');
      rmSync(retry);
      symlinkSync('../.env', retry);
      const swapped = await call('get_snippet', { path: 'src/retry.ts', start_line: 1 });
      assert.equal(swapped.isError, true);
      assert.match(toolText(swapped), /is a symbolic link/);
      assertClean('get_snippet of a swapped file', toolText(swapped));
    } finally {
      await client.close();
      rmSync(path.join(root, 'src', 'retry.ts'), { force: true });
      writeFileSync(path.join(root, 'src', 'retry.ts'), FILES['src/retry.ts']!);
    }
  });

  test('--secrets skip leaves files holding secrets out; a bad policy is a usage error', async () => {
    const bad = await runCli(['index', root, '--no-vectors', '--secrets', 'hide', '-q']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--secrets must be redact or skip, got "hide"/);
    // A policy applies to the files a run reads: --rebuild reads them all.
    const r = await runCli([
      'index',
      root,
      '--no-vectors',
      '--json',
      '-q',
      '--rebuild',
      '--secrets',
      'skip',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary.skippedPaths.secret, ['.env', 'src/deploy.ts', 'src/storage.py']);
    assert.equal(summary.totals.files, 2);
    assertClean('the summary', r.stdout);
    const gone = await runCli(['search', '--index', path.join(root, '.codesift'), 'boto3 bucket']);
    assert.doesNotMatch(gone.stdout, /storage\.py/);
  });
});
