import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CliUser, cliBin, runCli } from '../support/cli.js';
import { connectStdio } from '../support/mcp-stdio.js';
import { writeTree } from '../support/tree.js';

/**
 * A repository the user can read but not write: the index goes to the user
 * cache, and the commands that look for an index by root find it there.
 * Root may write anywhere, so as root (CI) the CLI runs as "nobody" on a tree
 * root owns; as anyone else the tree is made read-only (chmod a-w).
 */
describe('codesift index on a read-only repository (CLI, end to end)', () => {
  const asRoot = process.getuid?.() === 0;
  const user: CliUser | undefined = asRoot ? { uid: 65534, gid: 65534 } : undefined;
  let work: string;
  let repo: string;
  let cache: string;
  let env: NodeJS.ProcessEnv;
  const treeDirs = () => [repo, path.join(repo, 'src'), path.join(repo, 'src', 'deep')];

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-ro-'));
    // mkdtemp makes 0700: the other user must be able to walk into it.
    chmodSync(work, 0o755);
    repo = path.join(work, 'repo');
    writeTree(repo, {
      'src/ledger.ts': 'export function settleLedgerBalance(): number {\n  return 42;\n}\n',
      'src/deep/util.py': 'def normalize_invoice_total(x):\n    return x\n',
    });
    for (const dir of treeDirs()) chmodSync(dir, 0o555);
    cache = path.join(work, 'cache');
    mkdirSync(cache);
    chmodSync(cache, 0o777);
    env = { XDG_CACHE_HOME: cache, CODESIFT_CACHE_DIR: '' };
  });
  after(() => {
    // Writable again, so that a non-root run can delete the tree.
    for (const dir of treeDirs()) chmodSync(dir, 0o755);
    rmSync(work, { recursive: true, force: true });
  });

  const run = (args: string[], cwd = repo) => runCli(args, { cwd, env, ...(user ? { user } : {}) });

  test('the index goes to the user cache, said once, and every lookup by root finds it', async () => {
    const r = await run(['index', repo, '--json', '--no-vectors']);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    const indexDir = path.join(cache, 'codesift', 'indexes');
    assert.ok(
      summary.indexPath.startsWith(`${indexDir}${path.sep}repo-`),
      `index in the user cache, got ${summary.indexPath}`,
    );
    assert.equal(summary.root, repo);
    assert.equal(summary.filesIndexed, 2);
    assert.equal(existsSync(path.join(repo, '.codesift')), false);
    const notes = r.stderr.split('\n').filter((l) => l.startsWith('note: '));
    assert.equal(notes.length, 1, r.stderr);
    assert.match(
      notes[0]!,
      /is kept in .*indexes[/\\]repo-[0-9a-f]{12} \(.* is not writable: EACCES\)/,
    );

    // From a subdirectory, as a user searches: found by walking up to the root.
    const s = await run(
      ['search', 'settleLedgerBalance', '--keyword-only', '--json'],
      path.join(repo, 'src', 'deep'),
    );
    assert.equal(s.code, 0, s.stderr);
    const found = JSON.parse(s.stdout);
    assert.equal(found.root, repo);
    assert.equal(found.results[0]?.path, 'src/ledger.ts');

    const check = await run(['index', '--check', repo, '--json']);
    assert.equal(check.code, 0, check.stderr);
    assert.equal(JSON.parse(check.stdout).indexPath, summary.indexPath);

    // The second run updates the same cached index instead of starting another.
    const again = await run(['index', repo, '--json', '--no-vectors']);
    assert.equal(again.code, 0, again.stderr);
    const second = JSON.parse(again.stdout);
    assert.equal(second.indexPath, summary.indexPath);
    assert.equal(second.filesUnchanged, 2);

    // codesift mcp started in the tree, as an agent's client starts it, serves that index.
    const argv = [cliBin, 'mcp', '--keyword-only', '--no-watch'];
    const { client } = await connectStdio(
      {
        // StdioClientTransport cannot switch users itself; setpriv (util-linux) does.
        ...(user
          ? {
              command: 'setpriv',
              args: [
                `--reuid=${user.uid}`,
                `--regid=${user.gid}`,
                '--clear-groups',
                process.execPath,
                ...argv,
              ],
            }
          : { command: process.execPath, args: argv }),
        cwd: repo,
        env: {
          ...(process.env as Record<string, string>),
          ...(env as Record<string, string>),
          NO_COLOR: '1',
        },
      },
      'e2e-index-cache',
    );
    try {
      const r = (await client.callTool({
        name: 'search_code',
        arguments: { query: 'settleLedgerBalance' },
      })) as CallToolResult;
      assert.ok(!r.isError, JSON.stringify(r.content));
      const results = (r.structuredContent as { results: { path: string }[] }).results;
      assert.equal(results[0]?.path, 'src/ledger.ts');
    } finally {
      await client.close();
    }
  });
});
