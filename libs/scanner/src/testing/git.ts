// For tests that need a real git repository: git run in a directory under a
// fixed identity (a machine without a configured user can still commit).
import { execFileSync } from 'node:child_process';

/** Runs `git <args>` in `cwd`; returns its stdout as git wrote it. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

/** Stages everything in `repo` and commits it; returns the new commit's sha. */
export function commitAll(repo: string, message: string): string {
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', message);
  return gitIn(repo, 'rev-parse', 'HEAD').trim();
}
