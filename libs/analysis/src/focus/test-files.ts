/**
 * Test-file detection by each language's own conventions, kept as data:
 * one table of directory names shared by all languages, and one table of
 * file-name rules per language. The focus step multiplies results that are
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

/** Directory-name endings of test projects: `MyApp.Tests/`, `core-tests/`, `api_test/` (lowercase). */
export const TEST_DIRECTORY_SUFFIXES: readonly string[] = [
  '.tests',
  '.test',
  '-tests',
  '_tests',
  '-test',
  '_test',
];

export interface TestFileRules {
  /** File names ending with one of these (case-sensitive): `_test.go`, `Test.java`. */
  suffixes?: readonly string[];
  /** File names starting with one of these (case-sensitive), combined with `extensions`. */
  prefixes?: readonly string[];
  /** Whole file names: `conftest.py`. */
  names?: readonly string[];
  /** Markers inside the name: `.test.` in `walk.test.ts`. */
  infixes?: readonly string[];
  /** Extensions a prefix rule applies to (with the dot). */
  extensions?: readonly string[];
}

const JS_RULES: TestFileRules = {
  infixes: ['.test.', '.spec.', '.e2e.', '.e2e-spec.'],
  suffixes: ['_test.js', '_test.ts', '-test.js', '-test.ts'],
};

const JVM_SUFFIXES = ['Test', 'Tests', 'IT', 'TestCase', 'Spec'];

/** Per-language file-name rules; the key is a detectLanguage id. */
export const TEST_FILE_RULES: Readonly<Record<string, TestFileRules>> = {
  go: { suffixes: ['_test.go'] },
  python: {
    prefixes: ['test_'],
    suffixes: ['_test.py', '_tests.py'],
    names: ['conftest.py', 'tests.py'],
    extensions: ['.py', '.pyi'],
  },
  typescript: JS_RULES,
  tsx: JS_RULES,
  javascript: JS_RULES,
  java: {
    suffixes: JVM_SUFFIXES.map((s) => `${s}.java`),
    prefixes: ['Test'],
    extensions: ['.java'],
  },
  kotlin: { suffixes: JVM_SUFFIXES.map((s) => `${s}.kt`), prefixes: ['Test'], extensions: ['.kt'] },
  scala: { suffixes: ['Test.scala', 'Spec.scala', 'Suite.scala'] },
  rust: { suffixes: ['_test.rs', '_tests.rs'], names: ['tests.rs', 'test.rs'] },
  csharp: { suffixes: ['Test.cs', 'Tests.cs'] },
  ruby: { suffixes: ['_spec.rb', '_test.rb'], prefixes: ['test_'], extensions: ['.rb'] },
  php: { suffixes: ['Test.php'] },
  swift: { suffixes: ['Tests.swift', 'Test.swift'] },
  c: { suffixes: ['_test.c', '_unittest.c'], prefixes: ['test_'], extensions: ['.c'] },
  cpp: {
    suffixes: [
      '_test.cc',
      '_test.cpp',
      '_test.cxx',
      '_unittest.cc',
      '_unittest.cpp',
      'Test.cpp',
      'Tests.cpp',
    ],
    prefixes: ['test_'],
    extensions: ['.cc', '.cpp', '.cxx'],
  },
  // `.bats` files are Bats test scripts whatever their name.
  shell: { suffixes: ['_test.sh', '.bats'] },
  lua: { suffixes: ['_spec.lua', '_test.lua'], prefixes: ['test_'], extensions: ['.lua'] },
};

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
  return matchesRules(base, TEST_FILE_RULES[lang] ?? GENERIC_RULES);
}
