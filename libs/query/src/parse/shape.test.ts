import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TermShape } from '../types.js';
import { classifyToken } from './shape.js';

const cases: [string, TermShape, string?][] = [
  ['D40', 'code'],
  ['E1101', 'code'],
  ['HTTP-404', 'code'],
  ['PII-2024-0042', 'code'],
  ['CVE-2024-1234', 'code'],
  ['utf8', 'code'],
  ['src/a/b.ts', 'path'],
  ['a/b.go:42', 'path', 'a/b.go'],
  ['walk.ts', 'path'],
  ['.env', 'path'],
  ['./scripts/run-tests.mjs', 'path'],
  ['C:\\proj\\x.py', 'path'],
  ['https://example.com/x', 'url'],
  ['os.path.join', 'dotted'],
  ['pkg.Func', 'dotted'],
  ['std::vector', 'dotted'],
  ['Foo#bar', 'dotted'],
  // A short extension that is also a common member name stays a qualified name.
  ['self.cfg', 'dotted'],
  ['console.log', 'dotted'],
  ['addEdge', 'camel'],
  ['OllamaEmbedder', 'pascal'],
  ['IOError', 'pascal'],
  ['XMLHttpRequest', 'pascal'],
  ['max_file_bytes', 'snake'],
  ['__init__', 'snake'],
  ['MAX_FILE_BYTES', 'screaming'],
  ['max-file-bytes', 'kebab'],
  ['HTTP', 'acronym'],
  ['404', 'number'],
  ['75.1725', 'number'],
  ['v1.2.3', 'number'],
  ['0x1f', 'number'],
  ['Search', 'word'],
  ['scanner', 'word'],
  ["don't", 'word'],
  ['e.g', 'word'],
  ['U.S.C', 'acronym'],
  // Prose with a slash is not a path.
  ['and/or', 'word'],
  ['日本語', 'word'],
];

test('classifyToken gives each token its shape', () => {
  for (const [token, shape, value] of cases) {
    const c = classifyToken(token);
    assert.equal(c.shape, shape, token);
    assert.equal(c.value, value ?? token, token);
  }
});

test('classifyToken reads a line and column suffix off paths', () => {
  assert.deepEqual(classifyToken('src/x.ts:10:5'), {
    shape: 'path',
    value: 'src/x.ts',
    line: 10,
    column: 5,
  });
});
