import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTestPath } from './test-files.js';

test('test files by language convention', () => {
  const tests = [
    // directories, any language
    'tests/test_walk.py',
    'pkg/test/helpers.py',
    'src/__tests__/walk.ts',
    'spec/models/user_spec.rb',
    'libs/x/testing/util.go',
    'src/test/java/com/acme/WalkerTest.java',
    'Tests/Unit/Foo.cs',
    'MyApp.Tests/FooFacts.cs',
    'src/MyApp.Specs/Retry/Helpers.cs',
    'src/app-specs/helpers.js',
    // fixtures and test data count as tests
    'test/fixtures/repo/src/main.ts',
    'internal/scanner/testdata/binary.bin',
    'src/__snapshots__/walk.test.ts.snap',
    'src/__mocks__/fs.ts',
    // Go
    'internal/scanner/walk_test.go',
    // Python
    'src/codesift/test_walk.py',
    'src/codesift/walk_test.py',
    'conftest.py',
    // JS/TS
    'libs/analysis/src/analyze.test.ts',
    'web/src/App.spec.tsx',
    'lib/x.test.mjs',
    'app/login.e2e-spec.ts',
    // Java / Kotlin
    'core/src/main/java/com/acme/WalkerTest.java',
    'core/WalkerTests.java',
    'core/WalkerIT.java',
    'core/TestUtils.java',
    'app/src/main/kotlin/WalkerTest.kt',
    // Rust
    'crates/core/tests/integration.rs',
    'benches/throughput.rs',
    'src/chunker/split_test.rs',
    'src/chunker/tests.rs',
    // C / C++
    'src/parser_test.c',
    'src/test_parser.c',
    'src/parser_test.cc',
    'src/ParserTest.cpp',
    // Ruby, Swift, Kotlin, C#, PHP
    'lib/billing/invoice_spec.rb',
    'Tests/AppTests/InvoiceTests.swift',
    'app/src/test/kotlin/InvoiceCalculator.kt',
    'src/Billing/InvoiceTests.cs',
    'src/Billing/InvoiceSpecs.cs',
    'src/Billing/InvoiceTest.php',
    'tests/Feature/Invoice.php',
    // Shell, Lua
    'scripts/deploy.bats',
    'lua/billing/invoice_spec.lua',
    'lua/test_invoice.lua',
    // Windows separators
    'src\\__tests__\\walk.ts',
  ];
  for (const p of tests) assert.equal(isTestPath(p), true, p);
});

test('implementation files are not tests', () => {
  const impl = [
    'internal/scanner/walk.go',
    'src/codesift/walker.py',
    'src/codesift/attest.py',
    'src/contest.py',
    'libs/analysis/src/analyze.ts',
    'libs/analysis/src/focus/test-files.ts',
    'src/main/java/com/acme/Contest.java',
    'src/main/java/com/acme/Latest.java',
    'src/main/java/com/acme/Testament.java',
    'src/latest/x.ts',
    'src/chunker/split.rs',
    'src/parser.c',
    'include/parser.h',
    'lib/billing/invoice.rb',
    'lua/billing/invoice.lua',
    'lua/latest.lua',
    'scripts/deploy.sh',
    'src/Contest.cpp',
    'src/OpenApi/ApiSpec.cs',
    'docs/openapi-spec/schema.yaml',
    'README.md',
    'docs/testing-guide.md',
    '',
  ];
  for (const p of impl) assert.equal(isTestPath(p), false, p);
});

test('an explicit language selects its rules', () => {
  // A `test_` prefix means a test in Python, not in Go.
  assert.equal(isTestPath('tools/test_gen.py', 'python'), true);
  assert.equal(isTestPath('tools/test_gen.go', 'go'), false);
  assert.equal(isTestPath('tools/gen_test.go', 'go'), true);
});
