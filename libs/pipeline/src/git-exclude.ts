/**
 * Keeps a `.codesift/` index directory inside a git work tree out of `git
 * status`: its path from the work tree's top goes into the repository's
 * `info/exclude` (local to the clone, never committed), once. Read from the
 * files git itself reads, so no git binary is needed; any failure (a
 * read-only `.git`, an odd layout) leaves git alone and never fails indexing.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_INDEX_DIR } from '@codesift/core';

export interface GitExclusion {
  /** The exclude file written or already holding the line. */
  file: string;
  /** The line, e.g. `/.codesift/` or `/sub/.codesift/`. */
  line: string;
  /** False when the line was there already. */
  added: boolean;
}

/** Adds `indexDir` to its repository's info/exclude; null when it is not a `.codesift` inside a work tree. */
export function excludeFromGit(indexDir: string): GitExclusion | null {
  try {
    const dir = path.resolve(indexDir);
    // Only the default index directory: an index placed elsewhere is the user's to ignore.
    if (path.basename(dir) !== DEFAULT_INDEX_DIR) return null;
    const repo = findRepository(path.dirname(dir));
    if (!repo) return null;
    const rel = path.relative(repo.top, dir).split(path.sep).join('/');
    const line = `/${rel}/`;
    const file = path.join(repo.commonDir, 'info', 'exclude');
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text.split(/\r?\n/).some((l) => l.trim() === line)) return { file, line, added: false };
    mkdirSync(path.dirname(file), { recursive: true });
    const sep = text === '' || text.endsWith('\n') ? '' : '\n';
    appendFileSync(file, `${sep}# codesift's local index\n${line}\n`);
    return { file, line, added: true };
  } catch {
    return null;
  }
}

/**
 * The work tree holding `from` and the git directory whose info/exclude it
 * reads: `.git` as a directory, or a `.git` file (`gitdir: ...`, a linked
 * worktree or a submodule) whose git directory may name a shared `commondir`.
 */
function findRepository(from: string): { top: string; commonDir: string } | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    if (existsSync(dotGit)) {
      if (statSync(dotGit).isDirectory()) return { top: dir, commonDir: dotGit };
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
      if (!m) return null;
      const gitDir = path.resolve(dir, m[1]!);
      const common = path.join(gitDir, 'commondir');
      const commonDir = existsSync(common)
        ? path.resolve(gitDir, readFileSync(common, 'utf8').trim())
        : gitDir;
      return { top: dir, commonDir };
    }
    if (path.dirname(dir) === dir) return null;
  }
}
