/**
 * Documentation that the prose rule (focus.ts, by extension) misses or
 * under-weights, recognised by the layout conventions shared across
 * ecosystems rather than by any one repository:
 *
 * - Changelogs (`CHANGELOG.md`, `History.md`, `CHANGES.rst`, `NEWS`,
 *   `doc/whats-new.rst`): one line per past change, written in the words of
 *   commit messages and issue titles, so nearly every question about a
 *   behaviour matches some entry, and none holds the code. Measured on
 *   git-history sets of three repositories the planner was never tuned on,
 *   a changelog ranked above the first relevant file in 10 to 21 queries of
 *   80 per set (docs/EVALUATION.md, 2026-11-26). The planner multiplies
 *   them by CHANGELOG_MULTIPLIER unless the query names one.
 * - TypeScript declaration files (`index.d.ts`, `types/request.d.ts`,
 *   `index.d.cts`) shipped beside a JavaScript implementation: every name
 *   of the API again, with its doc comments, and no behaviour. In the two
 *   held-out issue sets whose repositories ship them (axios, fastify) a
 *   declaration file ranked above the file a report's fix changed in 6 of
 *   14 and 7 of 12 reports. Out of focus for an implementation question
 *   like example code, unless the query asks about the types themselves.
 * - Documentation and example trees (`docs/`, `examples/`, `_examples/`,
 *   `samples/`, `demo/`): code there (`docs/conf.py`, `examples/app.js`,
 *   a generated `docs/guide.html`) calls the library the way tests do,
 *   repeating its names, without implementing it. For an implementation
 *   question it is out of focus like a test (x 0.5 by default), unless the
 *   query asks for docs or for examples.
 */
import { detectLanguage } from '@codesift/analysis';
import { type ParsedQuery, reportLeadEnd } from '@codesift/query';

/** Changelogs are read by people choosing a version, not by someone looking for code. */
export const CHANGELOG_MULTIPLIER = 0.2;

/** File names (lowercase, extension removed) of changelogs. */
const CHANGELOG_NAMES: ReadonlySet<string> = new Set([
  'changelog',
  'changes',
  'history',
  'news',
  'releases',
  'release-notes',
  'release_notes',
  'releasenotes',
  'whats-new',
  'whats_new',
  'whatsnew',
]);

/**
 * Extensions a changelog is written in; so is any extension no language
 * claims (`CHANGES.old`, an archived changelog; `CHANGELOG.mdown`), while
 * a language's file named `history` is code (`history.py`, `changes.h`).
 */
const CHANGELOG_EXTENSIONS: ReadonlySet<string> = new Set([
  '',
  '.md',
  '.markdown',
  '.rst',
  '.txt',
  '.adoc',
  '.rdoc',
]);

/** Words that ask for a changelog itself (lowercase). */
export const CHANGELOG_WORDS: ReadonlySet<string> = new Set([
  'changelog',
  'changelogs',
  'whatsnew',
  'news',
]);

/** Directory names of documentation and example trees (lowercase), at any depth. */
export const DOC_TREE_DIRECTORIES: ReadonlySet<string> = new Set([
  'doc',
  'docs',
  'documentation',
  'example',
  'examples',
  '_examples',
  'sample',
  'samples',
  'demo',
  'demos',
]);

/** Words that ask about type declarations themselves (lowercase). */
export const DECLARATION_WORDS: ReadonlySet<string> = new Set([
  'typescript',
  'ts',
  'dts',
  'types',
  'typing',
  'typings',
  'declaration',
  'declarations',
]);

/** Words that ask for examples (lowercase); words that ask for docs are focus.ts's DOC_WORDS. */
export const EXAMPLE_WORDS: ReadonlySet<string> = new Set([
  'example',
  'examples',
  'sample',
  'samples',
  'demo',
  'demos',
]);

function split(path: string): { dirs: string[]; base: string } {
  const segs = path
    .replaceAll('\\', '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  const base = segs.pop() ?? '';
  return { dirs: segs, base };
}

export function isChangelogPath(path: string): boolean {
  const { base } = split(path);
  const lower = base.toLowerCase();
  const dot = lower.lastIndexOf('.');
  const stem = dot > 0 ? lower.slice(0, dot) : lower;
  const ext = dot > 0 ? lower.slice(dot) : '';
  return (
    CHANGELOG_NAMES.has(stem) && (CHANGELOG_EXTENSIONS.has(ext) || detectLanguage(base) === 'text')
  );
}

/**
 * A copy of another project's release, named with its version
 * (`static/jquery-3.5.1.js`, `underscore-1.13.1.min.js`), or a
 * minified bundle (`app.min.js`): a web page's library shipped beside the
 * code, not code of the repository, which module names with dots and
 * version numbers never are in the languages that import by file name.
 */
export function isVendoredCopy(path: string): boolean {
  const { base } = split(path);
  return (
    /[-.]v?\d+(?:\.\d+)+(?:[-.]min)?\.[a-z]+$/iu.test(base) || /\.min\.(?:js|css)$/iu.test(base)
  );
}

/** A TypeScript declaration file: `.d.ts`, `.d.cts`, `.d.mts`. */
export function isDeclarationPath(path: string): boolean {
  return /\.d\.[cm]?ts$/iu.test(split(path).base);
}

/** The word or path of the query that asks about type declarations, or null. */
export function asksForDeclarations(parsed: ParsedQuery, reports = true): string | null {
  return namesFileKind(parsed, reports, isDeclarationPath, DECLARATION_WORDS);
}

/** Whether the file lies in a documentation or example tree (any file kind). */
export function inDocTree(path: string): boolean {
  return split(path).dirs.some((d) => DOC_TREE_DIRECTORIES.has(d.toLowerCase()));
}

/**
 * The terms that can ask for a kind of file: not inside a stack trace, and
 * in a long pasted report (LONG_REPORT_CHARS or more, several lines) only
 * those of its lead line, as focus inference reads test words: "an
 * example:" in a report's body introduces the reporter's own code, it does
 * not ask for the repository's examples.
 */
function cueTerms(parsed: ParsedQuery, reports: boolean): ParsedQuery['terms'] {
  const leadEnd = reports ? reportLeadEnd(parsed.input) : Number.POSITIVE_INFINITY;
  return parsed.terms.filter((t) => t.trace === undefined && t.start < leadEnd);
}

function wordsOf(terms: ParsedQuery['terms']): string[] {
  return terms.flatMap((t) => t.value.toLowerCase().split(/[^\p{L}\p{N}]+/u));
}

/**
 * The file name among the query's cue terms that `isPath` recognises, else
 * the first of their words in `words`, else null: what a query names a kind
 * of file by (a changelog, a manifest).
 */
export function namesFileKind(
  parsed: ParsedQuery,
  reports: boolean,
  isPath: (path: string) => boolean,
  words: ReadonlySet<string>,
): string | null {
  const terms = cueTerms(parsed, reports);
  for (const t of terms) {
    // A file name (`CHANGES.rst`, `docs/NEWS`), not the bare word "changes" or "history".
    if (/[./]/.test(t.value) && isPath(t.value)) return t.value;
  }
  return wordsOf(terms).find((w) => words.has(w)) ?? null;
}

/** The word or path of the query that names a changelog, or null. */
export function namesChangelog(parsed: ParsedQuery, reports = true): string | null {
  return namesFileKind(parsed, reports, isChangelogPath, CHANGELOG_WORDS);
}

/** The word or path of the query that asks for examples, or null. */
export function asksForExamples(parsed: ParsedQuery, reports = true): string | null {
  const terms = cueTerms(parsed, reports);
  for (const t of terms) {
    if (t.shape === 'path' && inDocTree(t.value)) return t.value;
  }
  return wordsOf(terms).find((w) => EXAMPLE_WORDS.has(w)) ?? null;
}
