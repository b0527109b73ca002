/**
 * The languages codesift knows by name, one entry each: the file names and
 * extensions that are the language, and how its test files are named (the
 * focus step's rules, see focus/test-files.ts). The other per-language
 * rules live in the packages that use them, keyed by the same id: the
 * chunker's grammar and definition rules (@codesift/chunking
 * `languages/`), and the stack-trace recognizers of the runtimes
 * (@codesift/query `trace/formats/`).
 *
 * Languages with a tree-sitter grammar get structural chunking; the rest get
 * markdown or line-window chunking. `.h` is C here; the chunker reads the
 * text and treats C++ headers as C++.
 */

/** How a language names its test files; directories (`tests/`, `spec/`) are shared by all (test-files.ts). */
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

export interface LanguageEntry {
  /** Extensions with the dot, lowercase. */
  extensions: readonly string[];
  /** Whole file names that are this language (`Rakefile`). */
  fileNames?: readonly string[];
  /** Its test files' names; without an entry, the cross-language markers (`.test.`, `.spec.`). */
  testFiles?: TestFileRules;
  /** What users type for it besides the id (`--lang golang`), lowercase; see resolveLanguage. */
  aliases?: readonly string[];
}

const JS_TESTS: TestFileRules = {
  infixes: ['.test.', '.spec.', '.e2e.', '.e2e-spec.'],
  suffixes: ['_test.js', '_test.ts', '-test.js', '-test.ts'],
};

const JVM_TEST_SUFFIXES = ['Test', 'Tests', 'IT', 'TestCase', 'Spec'];

/** Every language by the id `detectLanguage` gives its files. */
export const LANGUAGES: Readonly<Record<string, LanguageEntry>> = {
  typescript: { aliases: ['ts'], extensions: ['.ts', '.mts', '.cts'], testFiles: JS_TESTS },
  tsx: { extensions: ['.tsx'], testFiles: JS_TESTS },
  javascript: {
    aliases: ['js', 'node', 'jsx'],
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    testFiles: JS_TESTS,
  },
  python: {
    aliases: ['py', 'python3'],
    extensions: ['.py', '.pyi'],
    testFiles: {
      prefixes: ['test_'],
      suffixes: ['_test.py', '_tests.py'],
      names: ['conftest.py', 'tests.py'],
      extensions: ['.py', '.pyi'],
    },
  },
  go: { aliases: ['golang'], extensions: ['.go'], testFiles: { suffixes: ['_test.go'] } },
  rust: {
    aliases: ['rs'],
    extensions: ['.rs'],
    testFiles: { suffixes: ['_test.rs', '_tests.rs'], names: ['tests.rs', 'test.rs'] },
  },
  java: {
    extensions: ['.java'],
    testFiles: {
      suffixes: JVM_TEST_SUFFIXES.map((s) => `${s}.java`),
      prefixes: ['Test'],
      extensions: ['.java'],
    },
  },
  c: {
    extensions: ['.c', '.h'],
    testFiles: { suffixes: ['_test.c', '_unittest.c'], prefixes: ['test_'], extensions: ['.c'] },
  },
  cpp: {
    aliases: ['c++', 'cxx'],
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx'],
    testFiles: {
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
  },
  csharp: {
    aliases: ['c#', 'cs'],
    extensions: ['.cs'],
    testFiles: { suffixes: ['Test.cs', 'Tests.cs', 'Specs.cs'] },
  },
  ruby: {
    aliases: ['rb'],
    extensions: ['.rb', '.rake', '.gemspec'],
    fileNames: ['Rakefile', 'Gemfile'],
    testFiles: { suffixes: ['_spec.rb', '_test.rb'], prefixes: ['test_'], extensions: ['.rb'] },
  },
  php: { extensions: ['.php'], testFiles: { suffixes: ['Test.php'] } },
  kotlin: {
    aliases: ['kt'],
    extensions: ['.kt', '.kts'],
    testFiles: {
      suffixes: JVM_TEST_SUFFIXES.map((s) => `${s}.kt`),
      prefixes: ['Test'],
      extensions: ['.kt'],
    },
  },
  swift: { extensions: ['.swift'], testFiles: { suffixes: ['Tests.swift', 'Test.swift'] } },
  scala: {
    extensions: ['.scala', '.sc'],
    testFiles: { suffixes: ['Test.scala', 'Spec.scala', 'Suite.scala'] },
  },
  // `.bats` files are Bats test scripts whatever their name.
  shell: {
    aliases: ['sh', 'bash', 'zsh'],
    extensions: ['.sh', '.bash', '.zsh', '.bats'],
    testFiles: { suffixes: ['_test.sh', '.bats'] },
  },
  lua: {
    extensions: ['.lua'],
    testFiles: { suffixes: ['_spec.lua', '_test.lua'], prefixes: ['test_'], extensions: ['.lua'] },
  },
  markdown: { aliases: ['md'], extensions: ['.md', '.mdx', '.markdown'] },
  rst: { extensions: ['.rst'] },
  text: { extensions: ['.txt'] },
  sql: { extensions: ['.sql'] },
  protobuf: { aliases: ['proto'], extensions: ['.proto'] },
  json: { extensions: ['.json'] },
  yaml: { aliases: ['yml'], extensions: ['.yaml', '.yml'] },
  toml: { extensions: ['.toml'] },
  hcl: { aliases: ['terraform', 'tf'], extensions: ['.tf', '.tfvars', '.hcl'] },
  ini: { extensions: ['.ini', '.cfg'] },
  html: { extensions: ['.html'] },
  css: { extensions: ['.css', '.scss'] },
  vue: { extensions: ['.vue'] },
  svelte: { extensions: ['.svelte'] },
  dockerfile: { aliases: ['docker'], extensions: [], fileNames: ['Dockerfile'] },
  make: { aliases: ['makefile'], extensions: [], fileNames: ['Makefile'] },
  cmake: { extensions: [], fileNames: ['CMakeLists.txt'] },
  gomod: { extensions: [], fileNames: ['go.mod'] },
};
