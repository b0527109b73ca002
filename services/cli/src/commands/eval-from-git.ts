import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError, errorMessage } from '@codesift/core';
import { buildGitHistorySet, formatGitHistorySet, repoNameFromMirror } from '@codesift/eval';
import type { OptionSpecs } from '../command-line.js';
import { type CliIO, EXIT, UsageError } from '../io.js';

/** `codesift eval --from-git`: writes a query set built from a repository's history. */
export const FROM_GIT_OPTIONS = {
  'from-git': {
    type: 'string',
    value: '<git dir>',
    help: 'build a SWE-bench-form set from this repository history instead of evaluating: each commit message is a query, the source files it changed are the answers (at its parent)',
  },
  out: { type: 'string', value: '<file>', help: 'where --from-git writes the set (JSON Lines)' },
  name: {
    type: 'string',
    value: '<owner/name>',
    help: 'repository name written into the set (default: from a <owner>+<name>/repo path)',
  },
  'max-queries': {
    type: 'string',
    value: '<n>',
    help: 'queries wanted, spread evenly over the qualifying history (default 150)',
  },
  since: {
    type: 'string',
    value: '<date>',
    help: 'only commits after this date (git log --since)',
  },
  'snapshot-every': {
    type: 'string',
    value: '<k>',
    help: 'search each query at a snapshot taken every k first-parent commits instead of its parent (fewer indexes); queries whose answer files changed since the snapshot are dropped',
  },
  'max-files': {
    type: 'string',
    value: '<n>',
    help: 'commits changing more files are skipped as mass changes (default 10)',
  },
  'max-lines': {
    type: 'string',
    value: '<n>',
    help: 'commits changing more lines are skipped as mass changes (default 500)',
  },
} as const satisfies OptionSpecs;

interface FromGitValues {
  'from-git'?: string;
  out?: string;
  name?: string;
  'max-queries'?: string;
  since?: string;
  'snapshot-every'?: string;
  'max-files'?: string;
  'max-lines'?: string;
  quiet?: boolean;
}

export function runFromGit(values: FromGitValues, io: CliIO): number {
  if (!values.out) throw new UsageError('--from-git needs --out <file.jsonl>');
  const gitDir = path.resolve(io.cwd, values['from-git']!);
  const repo = values.name ?? repoNameFromMirror(gitDir);
  if (repo === undefined) {
    throw new UsageError(
      `--from-git ${gitDir}: give --name <owner/name> (not a <owner>+<name>/repo path)`,
    );
  }
  if (!/^[^/\s]+\/[^/\s]+$/.test(repo))
    throw new UsageError(`--name must be owner/name, got ${repo}`);
  const set = buildGitHistorySet({
    gitDir,
    repo,
    maxQueries: positive(values, 'max-queries'),
    since: values.since,
    snapshotEvery: positive(values, 'snapshot-every'),
    maxFiles: positive(values, 'max-files'),
    maxLines: positive(values, 'max-lines'),
  });
  const out = path.resolve(io.cwd, values.out);
  try {
    writeFileSync(out, formatGitHistorySet(set));
  } catch (err) {
    throw new CodesiftError('INVALID_ARGUMENT', `cannot write ${out}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (!values.quiet) {
    const dropped = Object.entries(set.dropped)
      .sort(([, a], [, b]) => b - a)
      .map(([why, n]) => `${why} ${n}`)
      .join(', ');
    io.stderr.write(
      `${set.commitsRead} commits read, ${set.candidates} candidates; dropped: ${dropped || 'none'}\n`,
    );
  }
  io.stdout.write(
    `wrote ${set.lines.length} queries over ${set.distinctCommits} commits of ${repo} to ${values.out}\n`,
  );
  return EXIT.ok;
}

function positive(values: FromGitValues, key: keyof FromGitValues): number | undefined {
  const raw = values[key];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) {
    throw new UsageError(`--${key} must be a positive integer, got ${raw}`);
  }
  return n;
}
