/**
 * Reads the indexed tree's recent git history for the index's history
 * store (stores' HistoryIndex): each commit's message and changed paths.
 * Merges are left out (their changes are their parents'), and so are
 * commits touching more than MAX_PATHS_PER_COMMIT paths (mass renames,
 * reformatting, vendoring), which say nothing about where one behaviour
 * lives. A tree that is not a git work tree, or a missing git, has no
 * history: the index simply has none, and nothing fails.
 */
import { spawn } from 'node:child_process';
import type { HistoryCommit, LocalIndex } from '@codesift/stores';

/** Most recent commits read: older changes describe code that has mostly moved on. */
export const HISTORY_MAX_COMMITS = 5_000;
/** A commit changing more paths than this is not stored. */
export const MAX_PATHS_PER_COMMIT = 100;
/** git is given this long; a slower read leaves the stored history as it was. */
const GIT_TIMEOUT_MS = 60_000;

/**
 * Where the history comes from: the indexed root's own repository (paths
 * relative to the root, only changes under it), or a git directory at a
 * given revision whose tree the root holds (an evaluation's checkout).
 */
export type HistorySource = { root: string } | { gitDir: string; rev: string };

const RECORD = '\x01';
const FIELDS = '\x02';
const END = '\x03';

function gitArgs(source: HistorySource, args: string[]): { cwd?: string; argv: string[] } {
  return 'root' in source
    ? { cwd: source.root, argv: args }
    : { argv: ['--git-dir', source.gitDir, ...args] };
}

function runGit(
  source: HistorySource,
  args: string[],
  signal?: AbortSignal,
): Promise<string | null> {
  const { cwd, argv } = gitArgs(source, args);
  return new Promise((resolve) => {
    let out = '';
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', argv, {
        ...(cwd === undefined ? {} : { cwd }),
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: GIT_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      });
    } catch {
      resolve(null);
      return;
    }
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
      out += d;
    });
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code === 0 ? out : null));
  });
}

/** The commit `source` is at; null when it is not a git repository (or has no commits). */
export async function historyHead(
  source: HistorySource,
  signal?: AbortSignal,
): Promise<string | null> {
  const rev = 'root' in source ? 'HEAD' : source.rev;
  const out = await runGit(source, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], signal);
  const sha = out?.trim() ?? '';
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}

/** Parses `git log --name-only` in the RECORD/FIELDS/END format below. */
export function parseGitLog(out: string): HistoryCommit[] {
  const commits: HistoryCommit[] = [];
  for (const record of out.split(RECORD)) {
    const fields = record.indexOf(FIELDS);
    const end = record.indexOf(END, fields);
    if (fields < 0 || end < 0) continue;
    const [sha = '', time = ''] = record.slice(0, fields).trim().split(' ');
    const paths = record
      .slice(end + 1)
      .split('\n')
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    if (paths.length === 0 || paths.length > MAX_PATHS_PER_COMMIT) continue;
    commits.push({
      sha,
      time: Number(time) || 0,
      message: record.slice(fields + 1, end).trim(),
      paths,
    });
  }
  return commits;
}

/** The last `max` non-merge commits reachable from `head`, newest first. */
export async function readHistory(
  source: HistorySource,
  head: string,
  max = HISTORY_MAX_COMMITS,
  signal?: AbortSignal,
): Promise<HistoryCommit[] | null> {
  const out = await runGit(
    source,
    [
      '-c',
      'core.quotePath=false',
      'log',
      '--no-merges',
      '--no-renames',
      `--max-count=${max}`,
      '--name-only',
      `--format=${RECORD}%H %ct${FIELDS}%B${END}`,
      ...('root' in source ? ['--relative'] : []),
      head,
      '--',
    ],
    signal,
  );
  return out === null ? null : parseGitLog(out);
}

/**
 * Brings the index's stored history to `source`'s current commit: nothing
 * when it is already there, or when there is no repository or no history
 * store. Returns the commits stored, or null when nothing was written.
 */
export async function refreshHistory(
  index: Pick<LocalIndex, 'history'>,
  source: HistorySource,
  signal?: AbortSignal,
): Promise<number | null> {
  const store = index.history;
  if (!store) return null;
  const head = await historyHead(source, signal);
  if (head === null || (await store.head()) === head) return null;
  const commits = await readHistory(source, head, HISTORY_MAX_COMMITS, signal);
  if (commits === null) return null;
  await store.replace(commits, head);
  return commits.length;
}
