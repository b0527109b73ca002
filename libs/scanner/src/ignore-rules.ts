import ignore from 'ignore';

/** Ignore files read in every directory, lowest precedence first. */
/** codesift's own ignore file: read for its rules, never indexed. */
export const CODESIFT_IGNORE_FILE = '.codesiftignore';
export const IGNORE_FILE_NAMES: readonly string[] = ['.gitignore', CODESIFT_IGNORE_FILE];

/*
 * Git evaluates each .gitignore relative to its own directory, with deeper
 * files taking precedence, the last matching pattern winning, and no way to
 * re-include below an excluded directory. Giving each file its own `ignore`
 * instance does not reproduce that: the library also tests every parent
 * directory against each instance on its own, so a parent re-included by a
 * deeper negation would still count as excluded by the shallower file. Instead
 * every nested pattern is rewritten to be root-relative and one instance holds
 * the whole chain, in order, for each directory that adds rules.
 */

// Case-folding file systems are the usual on macOS and Windows, where git
// defaults core.ignorecase to true; elsewhere patterns are case-sensitive.
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

export interface IgnoreVerdict {
  ignored: boolean;
  /** A negation matched the path itself: the user asked for it explicitly. */
  unignored: boolean;
}

export class IgnoreRules {
  private constructor(
    /** Every .gitignore/.codesiftignore rule that applies at this depth. */
    private readonly fileRules: ignore.Ignore,
    /** Root-relative patterns from config or CLI: they outrank the ignore files. */
    private readonly extra: ignore.Ignore,
    private readonly effective: ignore.Ignore,
  ) {}

  static root(extraPatterns: readonly string[]): IgnoreRules {
    const fileRules = ignore({ ignorecase: IGNORE_CASE });
    const extra = ignore({ ignorecase: IGNORE_CASE }).add(extraPatterns.flatMap(splitLines));
    return new IgnoreRules(fileRules, extra, combine(fileRules, extra));
  }

  /**
   * Rules for the directory `dir` (root-relative POSIX, '' for the root) after
   * reading its ignore files; returns `this` when they add nothing.
   */
  withFile(dir: string, contents: readonly string[]): IgnoreRules {
    const patterns = contents
      .flatMap(splitLines)
      .map((line) => rebasePattern(line, dir))
      .filter((p): p is string => p !== undefined);
    if (patterns.length === 0) return this;
    const fileRules = ignore({ ignorecase: IGNORE_CASE }).add(this.fileRules).add(patterns);
    return new IgnoreRules(fileRules, this.extra, combine(fileRules, this.extra));
  }

  /** `rel` is root-relative POSIX; directories are tested with a trailing slash. */
  test(rel: string, isDirectory: boolean): IgnoreVerdict {
    try {
      const result = this.effective.test(isDirectory ? `${rel}/` : rel);
      return { ignored: result.ignored, unignored: result.unignored };
    } catch {
      // The library refuses some odd names (e.g. a file literally called '.'
      // cannot occur, but a future one might); not matching is the safe answer.
      return { ignored: false, unignored: false };
    }
  }
}

function combine(fileRules: ignore.Ignore, extra: ignore.Ignore): ignore.Ignore {
  return ignore({ ignorecase: IGNORE_CASE }).add(fileRules).add(extra);
}

function splitLines(content: string): string[] {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  return text.split(/\r?\n/);
}

/**
 * Rewrites one line of the ignore file in `dir` so it means the same thing
 * when matched against root-relative paths. Per gitignore(5): a pattern with a
 * slash at its start or middle is anchored to its file's directory; one
 * without matches at any depth below it.
 */
export function rebasePattern(line: string, dir: string): string | undefined {
  const trimmed = trimTrailingSpaces(line);
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  if (dir === '') return trimmed;
  const negated = trimmed.startsWith('!');
  const body = negated ? trimmed.slice(1) : trimmed;
  const withoutTrailingSlash = body.endsWith('/') ? body.slice(0, -1) : body;
  if (withoutTrailingSlash === '') return undefined;
  const anchored = withoutTrailingSlash.includes('/');
  const rebased = anchored
    ? `${escapeGlob(dir)}/${body.startsWith('/') ? body.slice(1) : body}`
    : `${escapeGlob(dir)}/**/${body}`;
  return negated ? `!${rebased}` : rebased;
}

/** Unescaped trailing spaces are not part of a pattern (gitignore(5)). */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}

/** A directory name used as a literal pattern prefix: its glob characters must not match. */
function escapeGlob(dir: string): string {
  const escaped = dir.replace(/[\\*?[\]]/g, '\\$&');
  return /^[!#]/.test(escaped) ? `\\${escaped}` : escaped;
}
