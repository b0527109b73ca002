import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CliIO, EXIT } from '../io.js';
import { main } from '../main.js';

async function runMain(argv: string[], cwd: string) {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    ({
      write: (chunk: string) => {
        out[key] += chunk;
        return true;
      },
    }) as unknown as CliIO['stdout'];
  const io: CliIO = { stdout: sink('stdout'), stderr: sink('stderr'), env: {}, cwd };
  return { code: await main(argv, io), ...out };
}

describe('codesift eval --from-git', () => {
  let work: string;
  let gitDir: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-fromgit-'));
    const repo = path.join(work, 'acme+tools', 'repo');
    mkdirSync(path.join(repo, 'lib'), { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: repo,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'Dev',
          GIT_AUTHOR_EMAIL: 'dev@example.com',
          GIT_COMMITTER_NAME: 'Dev',
          GIT_COMMITTER_EMAIL: 'dev@example.com',
        },
      });
    git('init', '-q');
    writeFileSync(path.join(repo, 'lib', 'tool.rb'), 'def run\n  1\nend\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'Initial version of the tool runner');
    writeFileSync(path.join(repo, 'lib', 'tool.rb'), 'def run\n  2\nend\n');
    git('commit', '-q', '-am', 'Return two from the runner so callers see progress');
    gitDir = path.join(repo, '.git');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('writes the set and names the repository from the mirrors layout', async () => {
    const r = await runMain(
      ['eval', '--from-git', path.dirname(gitDir), '--out', 'set.jsonl'],
      work,
    );
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /wrote 1 queries over 1 commits of acme\/tools to set\.jsonl/);
    assert.match(r.stderr, /2 commits read, 1 candidates; dropped: merge-or-root 1/);
    const line = JSON.parse(readFileSync(path.join(work, 'set.jsonl'), 'utf8'));
    assert.equal(line.repo, 'acme/tools');
    assert.equal(line.query_title, 'Return two from the runner so callers see progress');
    assert.deepEqual(line.relevant_lines, [
      { path: 'lib/tool.rb', ranges: [{ start: 2, end: 2 }] },
    ]);
  });

  test('a wrong command line exits 2 with the reason', async () => {
    for (const [argv, reason] of [
      [['--from-git', gitDir], /needs --out/],
      [
        ['--from-git', path.dirname(gitDir), '--out', 'x.jsonl', '--max-queries', '0'],
        /--max-queries must be a positive integer/,
      ],
      [['--from-git', path.dirname(gitDir), '--out', 'x.jsonl', '--set', 'y.jsonl'], /not both/],
      [
        ['--from-git', path.join(work, 'acme+tools', 'repo', 'lib'), '--out', 'x.jsonl'],
        /--name <owner\/name>/,
      ],
    ] as const) {
      const r = await runMain(['eval', ...argv], work);
      assert.equal(r.code, EXIT.usage, argv.join(' '));
      assert.match(r.stderr, reason);
    }
  });

  test('a directory that is no repository fails with exit 1', async () => {
    const r = await runMain(
      ['eval', '--from-git', work, '--name', 'a/b', '--out', 'x.jsonl'],
      work,
    );
    assert.equal(r.code, EXIT.failed);
    assert.match(r.stderr, /is not a git directory or work tree/);
  });
});
