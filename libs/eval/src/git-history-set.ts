import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { detectLanguage, isTestPath } from '@codesift/analysis';
import { CodesiftError, errorMessage } from '@codesift/core';
import { isGitDir } from './checkouts.js';
import type { LineRange, RelevantLines } from './query-set.js';

/**
 * Builds a SWE-bench-form query set from a repository's history, with no hand
 * labels: each commit's message is a query, and the source files it changed
 * (as they were at its parent) are the answers, down to the lines its diff
 * touches. Many repositories, many languages, hundreds of queries each.
 */

/** Languages whose files count as source; docs, config and markup do not. */
const SOURCE_LANGUAGES: ReadonlySet<string> = new Set([
  'typescript',
  'tsx',
  'javascript',
  'python',
  'go',
  'rust',
  'java',
  'c',
  'cpp',
  'csharp',
  'ruby',
  'php',
  'kotlin',
  'swift',
  'scala',
  'vue',
  'svelte',
]);

export interface GitHistoryOptions {
  /** The git directory (bare or `.git`), or a work tree holding `.git`; it is only read. */
  gitDir: string;
  /** `owner/name` written into each line (the eval finds the git directory by it). */
  repo: string;
  /** Queries wanted, spread evenly over the qualifying history (default 150). */
  maxQueries?: number;
  /** Only commits after this date (anything `git log --since` accepts). */
  since?: string;
  /**
   * Snap each query's commit to a snapshot taken every K first-parent commits,
   * so a set needs about (history / K) indexes instead of one per query. A
   * query whose answer files differ between the snapshot and its parent is
   * dropped, so its answers stay exact.
   */
  snapshotEvery?: number;
  /** More changed files than this and a commit is a mass change (default 10). */
  maxFiles?: number;
  /** More changed lines (added + deleted) than this and it is a mass change (default 500). */
  maxLines?: number;
}

/** One line of the set (the SWE-bench form plus where it came from). */
export interface GitHistoryLine {
  id: string;
  repo: string;
  /** Where the answers are searched: the parent, or its snapshot. */
  commit: string;
  query: string;
  query_title: string;
  relevant_files: string[];
  relevant_lines: RelevantLines[];
  /** The commit whose message is the query. */
  source_commit: string;
  /** Its parent, where `relevant_lines` were read. */
  parent: string;
  /** Present when `commit` is a snapshot rather than the parent. */
  snapshot_every?: number;
}

export type DropReason =
  | 'merge-or-root'
  | 'bot-or-release'
  | 'revert'
  | 'short-message'
  | 'too-many-files'
  | 'too-many-lines'
  | 'no-source'
  | 'tests-only'
  | 'only-new-files'
  | 'format-only'
  | 'changed-since-snapshot';

export interface GitHistorySet {
  lines: GitHistoryLine[];
  /** Commits read from the log (after --since). */
  commitsRead: number;
  /** Commits that passed the filters readable from the log alone. */
  candidates: number;
  dropped: Partial<Record<DropReason, number>>;
  /** Distinct `commit` values: the indexes an eval of the set builds. */
  distinctCommits: number;
}

interface LogCommit {
  sha: string;
  parents: string[];
  author: string;
  message: string;
  files: { path: string; lines: number }[];
  created: Set<string>;
  deleted: Set<string>;
}

const RECORD = '\u001e';
const FIELD = '\u001f';

export function buildGitHistorySet(options: GitHistoryOptions): GitHistorySet {
  const maxQueries = options.maxQueries ?? 150;
  const maxFiles = options.maxFiles ?? 10;
  const maxLines = options.maxLines ?? 500;
  const dropped: Partial<Record<DropReason, number>> = {};
  const drop = (why: DropReason) => {
    dropped[why] = (dropped[why] ?? 0) + 1;
  };
  const git = gitRunner(resolveGitDir(options.gitDir));

  const commits = readLog(git, options.since).reverse(); // oldest first
  const candidates: { commit: LogCommit; answers: string[]; message: Message }[] = [];
  for (const c of commits) {
    if (c.parents.length !== 1) {
      drop('merge-or-root');
      continue;
    }
    const message = splitMessage(c.message);
    const why =
      messageProblem(message, c.author) ?? sizeProblem(c, maxFiles, maxLines) ?? sourceProblem(c);
    if (why) {
      drop(why);
      continue;
    }
    candidates.push({ commit: c, answers: answerFiles(c), message });
  }

  const snapshots =
    options.snapshotEvery === undefined ? undefined : new Snapshots(git, options.snapshotEvery);
  const lines: GitHistoryLine[] = [];
  const [owner, name] = options.repo.split('/');
  // Evenly spaced picks over the candidates, oldest to newest; a pick that
  // fails a check that needs a diff gives way to the next candidate before
  // the following pick.
  const wanted = Math.min(maxQueries, candidates.length);
  for (let j = 0; j < wanted; j++) {
    const from = Math.floor((j * candidates.length) / wanted);
    const to = Math.floor(((j + 1) * candidates.length) / wanted);
    for (let i = from; i < to; i++) {
      const { commit: c, answers, message } = candidates[i]!;
      const parent = c.parents[0]!;
      const touched = changedLines(git, parent, c.sha, answers);
      if (touched.length === 0) {
        drop('format-only');
        continue;
      }
      const line: GitHistoryLine = {
        id: `${owner}__${name}-${c.sha.slice(0, 12)}`,
        repo: options.repo,
        commit: parent,
        query: message.body === '' ? message.subject : `${message.subject}\n${message.body}`,
        query_title: message.subject,
        relevant_files: touched.map((t) => t.path),
        relevant_lines: touched,
        source_commit: c.sha,
        parent,
      };
      if (snapshots) {
        const snapshot = snapshots.snap(parent, line.relevant_files);
        if (snapshot === undefined) {
          drop('changed-since-snapshot');
          continue;
        }
        line.commit = snapshot;
        line.snapshot_every = options.snapshotEvery;
      }
      lines.push(line);
      break;
    }
  }
  return {
    lines,
    commitsRead: commits.length,
    candidates: candidates.length,
    dropped,
    distinctCommits: new Set(lines.map((l) => l.commit)).size,
  };
}

function resolveGitDir(dir: string): string {
  for (const candidate of [dir, path.join(dir, '.git')]) if (isGitDir(candidate)) return candidate;
  throw new CodesiftError('INVALID_ARGUMENT', `${dir} is not a git directory or work tree`, {
    hint: 'pass a bare mirror, a .git directory or a clone',
  });
}

type Git = (args: string[], okCodes?: number[]) => { stdout: string; status: number };

function gitRunner(gitDir: string): Git {
  return (args, okCodes = [0]) => {
    const r = spawnSync('git', ['--git-dir', gitDir, ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    if (r.error || r.status === null || !okCodes.includes(r.status)) {
      const why = r.error ? errorMessage(r.error) : (r.stderr ?? '').trim();
      throw new CodesiftError('UNREADABLE', `git ${args[0]} in ${gitDir} failed: ${why}`);
    }
    return { stdout: r.stdout, status: r.status };
  };
}

/** Every non-merge-filtered commit reachable from HEAD, newest first, with per-file line counts. */
function readLog(git: Git, since: string | undefined): LogCommit[] {
  const args = [
    'log',
    '--no-renames',
    '--numstat',
    '--summary',
    `--format=${RECORD}%H${FIELD}%P${FIELD}%an <%ae>${FIELD}%B${FIELD}`,
  ];
  if (since !== undefined) args.push(`--since=${since}`);
  args.push('HEAD');
  const out: LogCommit[] = [];
  for (const record of git(args).stdout.split(RECORD)) {
    if (record.trim() === '') continue;
    const [sha, parents, author, message, stats] = record.split(FIELD);
    const c: LogCommit = {
      sha: sha!,
      parents: parents!.split(' ').filter((p) => p !== ''),
      author: author!,
      message: message!,
      files: [],
      created: new Set(),
      deleted: new Set(),
    };
    for (const line of (stats ?? '').split('\n')) {
      const numstat = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
      if (numstat) {
        const lines = (Number(numstat[1]) || 0) + (Number(numstat[2]) || 0);
        c.files.push({ path: numstat[3]!, lines });
        continue;
      }
      const summary = /^ (create|delete) mode \d+ (.+)$/.exec(line);
      if (summary) (summary[1] === 'create' ? c.created : c.deleted).add(summary[2]!);
    }
    out.push(c);
  }
  return out;
}

interface Message {
  subject: string;
  body: string;
}

/** Trailers (sign-offs, co-authors, review ids) say who, not what. */
const TRAILER =
  /^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|cc|change-id|reviewed-on|pr-url):/i;

function splitMessage(raw: string): Message {
  const lines = raw.replace(/\r\n/g, '\n').trim().split('\n');
  const subject = (lines[0] ?? '').trim();
  const body = lines
    .slice(1)
    .filter((l) => !TRAILER.test(l.trim()))
    .join('\n')
    .trim();
  return { subject, body };
}

/** Dependency bumps, release commits and bots: their messages do not describe code. */
const BOT_AUTHOR = /\[bot\]|dependabot|renovate|github-actions|greenkeeper/i;
const BOT_SUBJECT = [
  /^(chore|build|ci)\(deps/i,
  /^(bump|update|upgrade)\b.*\b(from|to)\b.*\d/i,
  /^(release|prepare release|bump version|version bump)\b/i,
  /^v?\d+(\.\d+)+\S*$/,
];
const MIN_MESSAGE_CHARS = 20;
const MIN_MESSAGE_WORDS = 4;

function messageProblem(m: Message, author: string): DropReason | undefined {
  if (BOT_AUTHOR.test(author) || BOT_SUBJECT.some((re) => re.test(m.subject))) {
    return 'bot-or-release';
  }
  if (/^revert\b/i.test(m.subject)) return 'revert';
  const text = `${m.subject} ${m.body}`.trim();
  if (text.length < MIN_MESSAGE_CHARS || text.split(/\s+/).length < MIN_MESSAGE_WORDS) {
    return 'short-message';
  }
  return undefined;
}

function sizeProblem(c: LogCommit, maxFiles: number, maxLines: number): DropReason | undefined {
  if (c.files.length > maxFiles) return 'too-many-files';
  if (c.files.reduce((sum, f) => sum + f.lines, 0) > maxLines) return 'too-many-lines';
  return undefined;
}

function isSource(file: string): boolean {
  return SOURCE_LANGUAGES.has(detectLanguage(file));
}

function sourceProblem(c: LogCommit): DropReason | undefined {
  const source = c.files.filter((f) => isSource(f.path) && !f.path.startsWith('"'));
  if (source.length === 0) return 'no-source';
  if (source.every((f) => isTestPath(f.path))) return 'tests-only';
  if (answerFiles(c).length === 0) return 'only-new-files';
  return undefined;
}

/** Source files, not tests, that existed before the commit and still exist after it. */
function answerFiles(c: LogCommit): string[] {
  return c.files
    .map((f) => f.path)
    .filter(
      (p) =>
        isSource(p) &&
        !p.startsWith('"') &&
        !isTestPath(p) &&
        !c.created.has(p) &&
        !c.deleted.has(p),
    );
}

/**
 * The parent-side lines each file's diff touches, whitespace changes ignored
 * (a file changed only in whitespace is no answer). A pure insertion touches
 * no parent line; it counts as the line it follows (line 1 at the top).
 */
function changedLines(git: Git, parent: string, commit: string, paths: string[]): RelevantLines[] {
  const diff = git([
    'diff',
    '--no-renames',
    '--no-color',
    '--no-ext-diff',
    '-U0',
    '-w',
    '--ignore-blank-lines',
    parent,
    commit,
    '--',
    ...paths,
  ]).stdout;
  return parseHunks(diff);
}

/** Parent-side ranges per file from a `-U0` unified diff, adjacent ranges merged. */
export function parseHunks(diff: string): RelevantLines[] {
  const byPath = new Map<string, LineRange[]>();
  let current: LineRange[] | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = undefined;
      continue;
    }
    if (line.startsWith('--- ')) {
      const name = line.slice(4).replace(/\t$/, '');
      current = undefined;
      if (name.startsWith('a/')) {
        current = [];
        byPath.set(name.slice(2), current);
      }
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (hunk && current) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      const range =
        count === 0
          ? { start: Math.max(1, start), end: Math.max(1, start) }
          : { start, end: start + count - 1 };
      const last = current[current.length - 1];
      if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
      else current.push(range);
    }
  }
  return [...byPath.entries()]
    .filter(([, ranges]) => ranges.length > 0)
    .map(([file, ranges]) => ({ path: file, ranges }));
}

/** Snapshots every K commits along HEAD's first-parent line, oldest first. */
class Snapshots {
  private readonly position = new Map<string, number>();
  private readonly line: string[];

  constructor(
    private readonly git: Git,
    private readonly every: number,
  ) {
    this.line = git(['rev-list', '--first-parent', '--reverse', 'HEAD'])
      .stdout.split('\n')
      .filter((s) => s !== '');
    for (const [i, sha] of this.line.entries()) this.position.set(sha, i);
  }

  /**
   * The last snapshot at or before `commit` on the first-parent line (for a
   * commit off it: before the point its branch left the line), provided the
   * answer files are the same there; undefined otherwise.
   */
  snap(commit: string, answers: string[]): string | undefined {
    let at = this.position.get(commit);
    if (at === undefined) {
      const ancestors = this.git(['rev-list', '--first-parent', commit]).stdout.split('\n');
      const onLine = ancestors.find((sha) => this.position.has(sha));
      if (onLine === undefined) return undefined;
      at = this.position.get(onLine)!;
    }
    const snapshot = this.line[at - (at % this.every)]!;
    if (snapshot === commit) return snapshot;
    const same = this.git(['diff', '--quiet', snapshot, commit, '--', ...answers], [0, 1]);
    return same.status === 0 ? snapshot : undefined;
  }
}

/** `<owner>+<name>/repo` (the mirrors layout) gives `owner/name`. */
export function repoNameFromMirror(gitDir: string): string | undefined {
  const m = /([^/\\]+)\+([^/\\]+)[/\\]repo[/\\]?$/.exec(gitDir);
  return m ? `${m[1]}/${m[2]}` : undefined;
}

/** The set as JSON Lines. */
export function formatGitHistorySet(set: GitHistorySet): string {
  return set.lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}
