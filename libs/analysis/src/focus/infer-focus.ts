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
 * frames without the user asking about tests.
 */
import { IDENTIFIER_SHAPES } from '../query/shape.js';
import type { ParsedQuery, TermNode } from '../query/types.js';
import { isTestPath } from './test-files.js';

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

/** Infers the focus of a parsed query (see the module comment for the rules). */
export function inferFocus(query: ParsedQuery): FocusResult {
  if (query.terms.length === 0) return { focus: 'all', reason: 'empty query' };
  const userTerms = query.terms.filter((t) => t.trace === undefined);
  const words: string[] = [];
  for (const t of userTerms) words.push(...wordsOf(t));

  let testWord: string | null = null;
  let implWord: string | null = null;
  let weakImpl: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
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
    (t) => !t.stop && IDENTIFIER_SHAPES.has(t.shape) && isTestIdentifier(t),
  );

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
