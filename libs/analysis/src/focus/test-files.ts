/**
 * Test-file detection by each language's own conventions, kept as data:
 * one table of directory names shared by all languages, and each
 * language's file-name rules in its entry of the language table
 * (languages.ts). The focus step multiplies results that are
 * out of focus (tests for an implementation question, and the reverse)
 * by 0.5, so a miss here only costs ranking, never a result.
 *
 * Decisions:
 * - Fixtures and test data (`fixtures/`, `testdata/`, `__snapshots__/`,
 *   `__mocks__/`) count as tests: they exist only for the tests, they often
 *   hold sample code that looks like the real thing, and a question about
 *   tests wants them while a question about the implementation does not.
 * - Rust `benches/` and Go/JS `e2e/` directories count as tests: they are
 *   not the implementation either.
 * - Directory names match any directory of the path, case-insensitively
 *   (`Tests/`, `src/test/java/`); file-name rules are case-sensitive where
 *   the convention is (`FooTest.java`, not `Contest.java`).
 */
import { detectLanguage } from '../language.js';
import { LANGUAGES, type TestFileRules } from '../languages.js';

/** Directory names that hold tests or test-only data, in any language (lowercase). */
export const TEST_DIRECTORIES: ReadonlySet<string> = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  '__specs__',
  'testing',
  'e2e',
  'benches',
  'fixtures',
  '__fixtures__',
  'testdata',
  'test-data',
  'test_data',
  '__snapshots__',
  '__mocks__',
]);

/**
 * Directory-name endings of test projects: `MyApp.Tests/`, `core-tests/`,
 * `api_test/`, and .NET's behaviour-spec projects `MyApp.Specs/` (lowercase).
 * A singular `-spec` is not among them: `openapi-spec/` holds a specification.
 */
export const TEST_DIRECTORY_SUFFIXES: readonly string[] = [
  '.tests',
  '.test',
  '-tests',
  '_tests',
  '-test',
  '_test',
  '.specs',
  '-specs',
  '_specs',
];

/** Rules for files of languages without a table (data files, docs): the cross-language markers. */
const GENERIC_RULES: TestFileRules = {
  infixes: ['.test.', '.spec.'],
};

function matchesRules(base: string, rules: TestFileRules): boolean {
  if (rules.names?.includes(base)) return true;
  if (rules.suffixes?.some((s) => base.endsWith(s) && base.length > s.length)) return true;
  if (rules.infixes?.some((s) => base.includes(s))) return true;
  const prefix = rules.prefixes?.find((p) => base.startsWith(p) && base.length > p.length);
  if (prefix === undefined) return false;
  const ext = base.slice(base.lastIndexOf('.'));
  if (rules.extensions && !rules.extensions.includes(ext)) return false;
  // `TestUtils.java` yes, `Testament.java` no: the prefix must end a word.
  const next = base.charAt(prefix.length);
  return prefix.endsWith('_') || (next >= 'A' && next <= 'Z');
}

/**
 * Whether `path` (relative or absolute, `/` or `\`) is a test, fixture or
 * test-data file by the conventions of `language` (default: detected from
 * the extension).
 */
export function isTestPath(path: string, language?: string): boolean {
  const p = path.replaceAll('\\', '/');
  const segs = p.split('/').filter((s) => s !== '' && s !== '.');
  const base = segs.pop();
  if (base === undefined) return false;
  for (const dir of segs) {
    const d = dir.toLowerCase();
    if (TEST_DIRECTORIES.has(d)) return true;
    if (TEST_DIRECTORY_SUFFIXES.some((s) => d.endsWith(s) && d.length > s.length)) return true;
  }
  const lang = language ?? detectLanguage(base);
  const rules = Object.hasOwn(LANGUAGES, lang) ? LANGUAGES[lang]!.testFiles : undefined;
  return matchesRules(base, rules ?? GENERIC_RULES);
}
