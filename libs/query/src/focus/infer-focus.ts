/**
 * Focus inference: does the query ask about the implementation, about the
 * tests, or about both? The scorer multiplies results out of focus by 0.5
 * (test files for 'implementation', non-test files for 'tests', nothing for
 * 'all'), so a wrong guess demotes, never hides.
 *
 * Rules, first match wins:
 * 1. No terms at all: 'all'.
 * 2. Test words ("tested", "spec", "fixture", "mock", ...) together with
 *    explicit implementation words ("implemented", "defined", ...): 'all'.
 * 3. Test words, or a test-shaped identifier (`test_parse`, `TestWalk`,
 *    `WalkerTest`) or path (`walk_test.go`): 'tests'. A test word right
 *    after a negation ("not tests", "without mocks", "non-test") counts as
 *    an implementation word instead.
 * 4. A stack trace or error line: 'implementation' (the fault is in code,
 *    even when the failing frame is a test).
 * 5. Implementation words, or a "how does/do" question: 'implementation'.
 * 6. Identifiers, codes or paths of non-test code: 'implementation'.
 * 7. Otherwise 'implementation': most searches look for the code itself,
 *    and test files, which repeat the names they test many times, would
 *    otherwise crowd out the definitions (the codelibrarian finding); tests
 *    still show up, at half score.
 * Words inside stack traces are not cues: a pasted trace mentions `test`
 * frames without the user asking about tests. Nor are the test words the
 * repository uses for its own code (`ownTestWords`): in a test runner's
 * repository "test" is what the implementation is about.
 *
 * With `reports` on (the default), pasted material is not a cue either,
 * since it is what the user saw, not what they ask for:
 * - words inside boilerplate (an environment report's `pytest: 7.1`, an
 *   issue template's comments; see query/boilerplate.ts);
 * - words inside fenced code blocks and `>>>` / `$` console lines (an
 *   example's `import pytest`, `assert x == y`);
 * - in a long multi-line report (LONG_REPORT_CHARS or more), test words
 *   after the lead: the first line is the report's summary, and "I tested
 *   with 2.1" or "the spec says" further down describes how the user
 *   tried, not where to look. A test word in the lead still decides.
 */
import { isTestPath } from '@codesift/analysis';
import { type BoilerplateBlock, findBoilerplate, insideBoilerplate } from '../parse/boilerplate.js';
import { IDENTIFIER_SHAPES } from '../parse/shape.js';
import type { ParsedQuery, TermNode } from '../types.js';

export type Focus = 'implementation' | 'tests' | 'all';

export interface FocusResult {
  focus: Focus;
  /** Human-readable cause, for the plan's explanation. */
  reason: string;
}

/** Words that ask about tests (lowercase). */
export const TEST_WORDS: ReadonlySet<string> = new Set([
  'test',
  'tests',
  'tested',
  'testing',
  'unittest',
  'unittests',
  'testcase',
  'testcases',
  'spec',
  'specs',
  'fixture',
  'fixtures',
  'mock',
  'mocks',
  'mocked',
  'mocking',
  'stub',
  'stubs',
  'stubbed',
  'fake',
  'fakes',
  'assert',
  'asserts',
  'assertion',
  'assertions',
  'coverage',
  'e2e',
  'pytest',
  'jest',
  'vitest',
  'junit',
  'mocha',
  'conftest',
  'testdata',
]);

/** Words that explicitly ask where or how something is implemented (lowercase). */
export const IMPLEMENTATION_WORDS: ReadonlySet<string> = new Set([
  'implement',
  'implements',
  'implemented',
  'implementing',
  'implementation',
  'implementations',
  'define',
  'defines',
  'defined',
  'definition',
  'definitions',
  'declare',
  'declares',
  'declared',
  'declaration',
]);

/** Words that hint at the implementation without naming it (lowercase). */
const WEAK_IMPLEMENTATION_WORDS: ReadonlySet<string> = new Set([
  'works',
  'handled',
  'handles',
  'handling',
  'logic',
  'algorithm',
  'computed',
  'computes',
  'calculated',
  'bug',
  'crash',
  'crashes',
  'broken',
]);

const NEGATIONS: ReadonlySet<string> = new Set([
  'not',
  'no',
  'non',
  'without',
  'excluding',
  'exclude',
  'except',
  'ignore',
  'ignoring',
  'skip',
  'skipping',
]);

const RE_TEST_IDENTIFIER =
  /^(?:test_|Test[A-Z_]|test[A-Z])|(?:_test|_spec)$|[a-z0-9](?:Test|Tests|Spec|IT)$/;

function isTestIdentifier(t: TermNode): boolean {
  if (t.shape === 'path') return isTestPath(t.value);
  return RE_TEST_IDENTIFIER.test(t.value);
}

/**
 * Lowercase prose words of a term (`non-test` -> non, test). Identifiers
 * and paths are judged whole by isTestIdentifier instead: `isTestPath` is
 * not a question about tests. They still occupy a slot, so a negation
 * does not reach across them.
 */
function wordsOf(t: TermNode): string[] {
  if (t.shape !== 'word' && t.shape !== 'kebab' && t.shape !== 'acronym') return [''];
  return t.value
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/** A multi-line query at least this long is a report: only its lead line asks about tests. */
export const LONG_REPORT_CHARS = 400;

export interface InferFocusOptions {
  /** Ignore pasted material as cues (boilerplate, code blocks, a long report's body); default true. */
  reports?: boolean;
  /**
   * Test words that name the repository's own code (a test runner's "test",
   * a mocking library's "mock"; the engine reads them from the index's
   * paths): no cue there. Default: none.
   */
  ownTestWords?: ReadonlySet<string>;
}

/** Spans of fenced code blocks and console lines (`>>> x`, `$ cmd`, `In [1]:`). */
function pastedSpans(input: string): BoilerplateBlock[] {
  const out: BoilerplateBlock[] = [];
  const fence = /^[ \t]*(?:```|~~~)/gm;
  let open: number | null = null;
  for (let m = fence.exec(input); m !== null; m = fence.exec(input)) {
    if (open === null) open = m.index;
    else {
      const nl = input.indexOf('\n', m.index);
      out.push({ kind: 'comment', start: open, end: nl === -1 ? input.length : nl, lines: 0 });
      open = null;
    }
  }
  if (open !== null) out.push({ kind: 'comment', start: open, end: input.length, lines: 0 });
  const consoleLine = /^[ \t]*(?:>>>|\.\.\.|\$|In \[\d+\]:|Out\[\d+\]:)[^\n]*/gm;
  for (let m = consoleLine.exec(input); m !== null; m = consoleLine.exec(input)) {
    out.push({ kind: 'comment', start: m.index, end: m.index + m[0].length, lines: 1 });
  }
  return out;
}

function mergeSpans(spans: BoilerplateBlock[]): BoilerplateBlock[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: BoilerplateBlock[] = [];
  for (const s of sorted) {
    const prev = out[out.length - 1];
    if (prev !== undefined && s.start <= prev.end) prev.end = Math.max(prev.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/**
 * Where a long pasted report's lead line ends (LONG_REPORT_CHARS or more,
 * several lines): the offset of its first line break after text. Infinity
 * for a short or one-line query, all of which is lead.
 */
export function reportLeadEnd(input: string): number {
  if (input.length < LONG_REPORT_CHARS || input.trim() === '') return Number.POSITIVE_INFINITY;
  const firstBreak = input.indexOf('\n', input.search(/\S/));
  return firstBreak === -1 ? Number.POSITIVE_INFINITY : firstBreak;
}

/** Infers the focus of a parsed query (see the module comment for the rules). */
export function inferFocus(query: ParsedQuery, options: InferFocusOptions = {}): FocusResult {
  if (query.terms.length === 0) return { focus: 'all', reason: 'empty query' };
  let userTerms = query.terms.filter((t) => t.trace === undefined);
  // Where the lead ends: test words after it do not count in a long report.
  let leadEnd = Number.POSITIVE_INFINITY;
  if (options.reports !== false) {
    const input = query.input;
    const pasted = mergeSpans([...findBoilerplate(input), ...pastedSpans(input)]);
    if (pasted.length > 0) userTerms = userTerms.filter((t) => !insideBoilerplate(pasted, t.start));
    leadEnd = reportLeadEnd(input);
  }
  const words: string[] = [];
  const inLead: boolean[] = [];
  for (const t of userTerms) {
    for (const w of wordsOf(t)) {
      words.push(w);
      inLead.push(t.start < leadEnd);
    }
  }

  let testWord: string | null = null;
  let implWord: string | null = null;
  let weakImpl: string | null = null;
  let ownWord: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (TEST_WORDS.has(w) && !inLead[i]) continue;
    if (TEST_WORDS.has(w) && options.ownTestWords?.has(w)) {
      ownWord ??= w;
      continue;
    }
    if (TEST_WORDS.has(w)) {
      const negated =
        (i > 0 && NEGATIONS.has(words[i - 1]!)) || (i > 1 && NEGATIONS.has(words[i - 2]!));
      if (negated) implWord ??= `${words[i - 1]} ${w}`;
      else testWord ??= w;
    } else if (IMPLEMENTATION_WORDS.has(w)) {
      implWord ??= w;
    } else if (WEAK_IMPLEMENTATION_WORDS.has(w)) {
      weakImpl ??= w;
    } else if (w === 'how' && (words[i + 1] === 'does' || words[i + 1] === 'do')) {
      weakImpl ??= `how ${words[i + 1]}`;
    }
  }
  const testIdent = userTerms.find(
    (t) => !t.stop && t.start < leadEnd && IDENTIFIER_SHAPES.has(t.shape) && isTestIdentifier(t),
  );
  const result = decide(query, userTerms, { testWord, implWord, weakImpl, testIdent });
  return ownWord === null
    ? result
    : { ...result, reason: `${result.reason}; "${ownWord}" names this repository's own code` };
}

/** Rules 2 to 7 of the module comment, over the cues found. */
function decide(
  query: ParsedQuery,
  userTerms: TermNode[],
  cues: {
    testWord: string | null;
    implWord: string | null;
    weakImpl: string | null;
    testIdent: TermNode | undefined;
  },
): FocusResult {
  const { testWord, implWord, weakImpl, testIdent } = cues;

  if (testWord && implWord) {
    return {
      focus: 'all',
      reason: `asks about both tests ("${testWord}") and implementation ("${implWord}")`,
    };
  }
  if (testWord) return { focus: 'tests', reason: `mentions tests ("${testWord}")` };
  // "where is TestWalker defined" is still about test code.
  if (testIdent) {
    return { focus: 'tests', reason: `names test code (${testIdent.value})` };
  }
  if (query.hasTrace) {
    return {
      focus: 'implementation',
      reason: 'contains a stack trace or error: look for the faulty code',
    };
  }
  if (implWord)
    return { focus: 'implementation', reason: `asks about implementation ("${implWord}")` };
  if (weakImpl) return { focus: 'implementation', reason: `asks how code works ("${weakImpl}")` };
  const ident = userTerms.find((t) => !t.stop && IDENTIFIER_SHAPES.has(t.shape));
  if (ident) return { focus: 'implementation', reason: `names non-test code (${ident.value})` };
  return {
    focus: 'implementation',
    reason: 'default: searches usually want the code itself; tests are kept at half score',
  };
}
