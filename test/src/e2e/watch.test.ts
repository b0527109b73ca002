import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliBin, collect, runCli, startCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

/**
 * Freshness end to end: the real `codesift watch`, `codesift search` and
 * `codesift mcp` processes over a real tree and SQLite index. Edits are
 * plain file writes; the watch must make them searchable, and without a
 * watch the hits from edited files must say they are stale.
 */
const FILES = {
  'src/orders.ts': 'export function placeOrder(total: number) {\n  return total;\n}\n',
  'src/billing.ts': 'export function chargeCard(amount: number) {\n  return amount;\n}\n',
  'README.md': '# shop\n\nOrders and billing.\n',
};

interface JsonHit {
  path: string;
  startLine: number;
  stale: boolean;
  snippet: string;
}

/**
 * The hits whose snippet holds `word` itself: a query can also match other
 * files through a sub-term of an identifier (`placeOrder` finds `submitOrder`).
 */
function holding(hits: JsonHit[], word: string): [string, boolean][] {
  return hits.filter((h) => h.snippet.includes(word)).map((h) => [h.path, h.stale]);
}

async function search(root: string, query: string): Promise<JsonHit[]> {
  const r = await runCli(['search', '--keyword-only', '--json', query], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { results: JsonHit[] }).results;
}

/** Lines the child prints on stdout, parsed, as they come. */
function jsonLines(child: ChildProcess): {
  next(
    ok: (e: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
} {
  const seen: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  child.stdout?.on('data', (d) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      seen.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
    }
    for (const w of waiters) w();
  });
  let from = 0;
  return {
    next(ok, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching line in ${timeoutMs} ms: ${JSON.stringify(seen)}\n${err}`));
        }, timeoutMs);
        const check = () => {
          const i = seen.findIndex((e, k) => k >= from && ok(e));
          if (i < 0) return;
          from = i + 1;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(seen[i]!);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

describe('freshness (end to end)', () => {
  let work: string;
  before(() => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-watch-e2e-')));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('codesift watch: edits, adds, deletes and renames become searchable; Ctrl-C stops it', async () => {
    const root = path.join(work, 'cli');
    writeTree(root, FILES);
    const child = startCli(['watch', '--no-vectors', '--json', '--debounce', '50'], { cwd: root });
    try {
      const lines = jsonLines(child);
      const watching = await lines.next((e) => e.event === 'watching', 60_000);
      assert.equal(watching.filesNew, 3, JSON.stringify(watching));
      // The grammars are warmed after the first run, and the watch says when.
      const ready = await lines.next((e) => e.event === 'ready', 60_000);
      assert.ok((ready.languages as string[]).includes('typescript'), JSON.stringify(ready));
      assert.deepEqual(holding(await search(root, 'placeOrder'), 'placeOrder'), [
        ['src/orders.ts', false],
      ]);

      writeFileSync(
        path.join(root, 'src/orders.ts'),
        '// moved down\n\nexport function submitOrder(total: number) {\n  return total;\n}\n',
      );
      const edited = await lines.next((e) => e.event === 'indexed');
      assert.deepEqual(edited.paths, ['src/orders.ts']);
      assert.equal(edited.filesChanged, 1);
      assert.deepEqual(holding(await search(root, 'submitOrder'), 'submitOrder'), [
        ['src/orders.ts', false],
      ]);
      assert.deepEqual(holding(await search(root, 'placeOrder'), 'placeOrder'), []);

      writeTree(root, { 'src/refunds.ts': 'export function refundOrder() {}\n' });
      await lines.next((e) => e.event === 'indexed' && e.filesNew === 1);
      assert.deepEqual(holding(await search(root, 'refundOrder'), 'refundOrder'), [
        ['src/refunds.ts', false],
      ]);

      renameSync(path.join(root, 'src/refunds.ts'), path.join(root, 'src/returns.ts'));
      // One batch or two (the watcher holds an unlink back briefly to spot editors' atomic saves).
      await lines.next((e) => e.event === 'indexed' && e.filesDeleted === 1);
      assert.deepEqual(holding(await search(root, 'refundOrder'), 'refundOrder'), [
        ['src/returns.ts', false],
      ]);

      unlinkSync(path.join(root, 'src/billing.ts'));
      await lines.next((e) => e.event === 'indexed' && e.filesDeleted === 1);
      assert.deepEqual(holding(await search(root, 'chargeCard'), 'chargeCard'), []);

      const exited = collect(child, 30_000);
      child.kill('SIGINT');
      const end = await exited;
      assert.equal(end.code, 0, end.stderr);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  test('without a watch, hits from edited or deleted files are marked stale everywhere', async () => {
    const root = path.join(work, 'stale');
    writeTree(root, FILES);
    const indexed = await runCli(['index', '--no-vectors', '--quiet', '.'], { cwd: root });
    assert.equal(indexed.code, 0, indexed.stderr);
    writeFileSync(
      path.join(root, 'src/orders.ts'),
      '\n\n\nexport function placeOrder(total: number) {\n  return total * 2;\n}\n',
    );
    unlinkSync(path.join(root, 'src/billing.ts'));

    const json = await runCli(['search', '--keyword-only', '--json', 'placeOrder chargeCard'], {
      cwd: root,
    });
    const results = (JSON.parse(json.stdout) as { results: JsonHit[] }).results;
    assert.deepEqual(results.map((r) => [r.path, r.stale]).sort(), [
      ['src/billing.ts', true],
      ['src/orders.ts', true],
    ]);
    const fresh = await search(root, 'shop');
    assert.deepEqual(
      fresh.map((r) => [r.path, r.stale]),
      [['README.md', false]],
    );

    const human = await runCli(['search', '--keyword-only', 'placeOrder'], { cwd: root });
    assert.match(human.stdout, /src\/orders\.ts:1-3 .*\[stale: changed since indexed\]/);
    assert.match(
      human.stderr,
      /warning: 1 result is from files changed since they were indexed: their lines may have moved/,
    );
  });
});

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function mcpClient(root: string, extra: string[]): Promise<Client> {
  const client = new Client({ name: 'e2e-watch', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp', '--keyword-only', ...extra],
      cwd: root,
      env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
      stderr: 'pipe',
    }),
  );
  return client;
}

type Hit = { path: string; start_line: number; stale: boolean };

async function searchCode(client: Client, query: string): Promise<{ hits: Hit[]; text: string }> {
  const r = (await client.callTool({
    name: 'search_code',
    arguments: { query },
  })) as CallToolResult;
  assert.equal(r.isError, undefined, text(r));
  return { hits: (r.structuredContent as { results: Hit[] }).results, text: text(r) };
}

describe('codesift mcp keeps its index fresh (end to end, SDK client over stdio)', () => {
  let work: string;
  before(() => {
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'codesift-mcp-watch-')));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('an edit saved while the server runs is searchable within seconds', async () => {
    const root = path.join(work, 'watched');
    writeTree(root, FILES);
    assert.equal((await runCli(['index', '--no-vectors', '--quiet', '.'], { cwd: root })).code, 0);
    const client = await mcpClient(root, []);
    try {
      assert.equal((await searchCode(client, 'placeOrder')).hits[0]?.path, 'src/orders.ts');
      // The watch starts in the background after the handshake; give it a moment to be ready.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const status = (await client.callTool({
        name: 'index_status',
        arguments: {},
      })) as CallToolResult;
      assert.equal((status.structuredContent as { watching: boolean }).watching, true);
      assert.match(text(status), /watch: on/);
      writeFileSync(
        path.join(root, 'src/orders.ts'),
        '// header\n\nexport function cancelOrderNow(id: string) {\n  return id;\n}\n',
      );
      // Until the watch re-indexed it, a search may still find the old text (a
      // sub-term of the query matches it): marked stale, never silently.
      const started = Date.now();
      let found: { hits: Hit[]; text: string } = { hits: [], text: '' };
      while (Date.now() - started < 15_000) {
        found = await searchCode(client, 'cancelOrderNow');
        if (found.text.includes('cancelOrderNow(id')) break;
        for (const h of found.hits) assert.equal(h.stale, true, found.text);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(
        found.hits.map((h) => [h.path, h.stale]),
        [['src/orders.ts', false]],
        found.text,
      );
      assert.doesNotMatch(found.text, /STALE/);
      const snippet = (await client.callTool({
        name: 'get_snippet',
        arguments: { path: 'src/orders.ts', start_line: 3, end_line: 3 },
      })) as CallToolResult;
      assert.equal((snippet.structuredContent as { stale: boolean }).stale, false);
      assert.match(text(snippet), /export function cancelOrderNow/);
    } finally {
      await client.close();
    }
  });

  test('--no-watch: the edit is not indexed, and search_code and get_snippet say stale', async () => {
    const root = path.join(work, 'unwatched');
    writeTree(root, FILES);
    assert.equal((await runCli(['index', '--no-vectors', '--quiet', '.'], { cwd: root })).code, 0);
    const client = await mcpClient(root, ['--no-watch']);
    try {
      writeFileSync(
        path.join(root, 'src/orders.ts'),
        '// header\n\nexport function placeOrder(total: number) {\n  return 0;\n}\n',
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const { hits, text: shown } = await searchCode(client, 'placeOrder');
      assert.deepEqual(
        hits.map((h) => [h.path, h.start_line, h.stale]),
        [['src/orders.ts', 1, true]],
      );
      assert.match(shown, /src\/orders\.ts:1-3 .* {2}STALE/);
      const snippet = (await client.callTool({
        name: 'get_snippet',
        arguments: { path: 'src/orders.ts', start_line: 1, end_line: 3 },
      })) as CallToolResult;
      assert.equal((snippet.structuredContent as { stale: boolean }).stale, true);
      assert.match(text(snippet), /\[STALE: the file changed since it was indexed/);
      // Nothing of the file the index does not hold is served.
      assert.doesNotMatch(text(snippet), /placeOrder/);
      const status = (await client.callTool({
        name: 'index_status',
        arguments: {},
      })) as CallToolResult;
      assert.equal((status.structuredContent as { watching: boolean }).watching, false);
    } finally {
      await client.close();
    }
  });
});
