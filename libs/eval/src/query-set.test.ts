import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import { parseQuerySet, queryText } from './query-set.js';

describe('query sets', () => {
  test('reads the SWE-bench line format', () => {
    const line = JSON.stringify({
      id: 'psf__requests-1',
      repo: 'psf/requests',
      commit: 'abc123def4567890abc123def4567890abc123de',
      query: 'Title\nlong body',
      query_title: 'Title',
      relevant_files: ['requests/models.py'],
      relevant_lines: [{ path: 'requests/models.py', ranges: [{ start: 1, end: 2 }] }],
    });
    const [q] = parseQuerySet(`${line}\n`);
    assert.equal(q!.repo, 'psf/requests');
    assert.equal(q!.commit, 'abc123def4567890abc123def4567890abc123de');
    assert.deepEqual(q!.relevantFiles, ['requests/models.py']);
    assert.deepEqual(q!.relevantLines, [
      { path: 'requests/models.py', ranges: [{ start: 1, end: 2 }] },
    ]);
    assert.equal(queryText(q!, 'query'), 'Title\nlong body');
    assert.equal(queryText(q!, 'query_title'), 'Title');
  });

  test('reads the single-repository format with classes and grades', () => {
    const text = [
      '// comments and blank lines are skipped',
      '',
      JSON.stringify({
        id: 'a',
        query: 'SomeIdentifier',
        relevant_files: ['./libs/x.ts'],
        class: 'exact-identifier',
      }),
      JSON.stringify({ id: 'b', query: 'how', grades: { 'libs/y.ts': 2, 'libs/z.ts': 0 } }),
    ].join('\n');
    const [a, b] = parseQuerySet(text);
    assert.equal(a!.class, 'exact-identifier');
    assert.deepEqual(a!.relevantFiles, ['libs/x.ts'], 'a leading ./ is dropped');
    assert.equal(a!.line, 3);
    assert.deepEqual(b!.relevantFiles, ['libs/y.ts'], 'grade 0 is not relevant');
    assert.deepEqual(b!.grades, { 'libs/y.ts': 2, 'libs/z.ts': 0 });
    assert.throws(() => queryText(a!, 'query_title'), /has no query_title/);
  });

  const bad: [string, RegExp][] = [
    ['{not json', /set\.jsonl:2: not valid JSON/],
    ['[1,2]', /set\.jsonl:2: not a JSON object/],
    ['{"query":"q","relevant_files":["a"]}', /set\.jsonl:2: missing "id"/],
    ['{"id":"x","query":"q","relevant_files":[]}', /set\.jsonl:2: no relevant files/],
    [
      '{"id":"x","query":"q","relevant_files":[3]}',
      /set\.jsonl:2: "relevant_files" must be an array/,
    ],
    ['{"id":"ok","query":"q","relevant_files":["a"]}', /set\.jsonl:2: duplicate id "ok"/],
    [
      '{"id":"x","query":"q","relevant_files":["a"],"repo":"o/n"}',
      /set\.jsonl:2: "repo" and "commit" go together/,
    ],
    ['{"id":"x","query":"q","grades":{"a":"high"}}', /set\.jsonl:2: grade of "a" must be a number/],
  ];
  for (const [line, expected] of bad) {
    test(`a bad line is refused with its line number: ${line}`, () => {
      const text = `{"id":"ok","query":"q","relevant_files":["a"]}\n${line}\n`;
      assert.throws(
        () => parseQuerySet(text, 'set.jsonl'),
        (err: unknown) =>
          err instanceof CodesiftError &&
          err.code === 'INVALID_ARGUMENT' &&
          expected.test(err.message),
      );
    });
  }

  test('an empty set is refused', () => {
    assert.throws(
      () => parseQuerySet('\n\n', 'empty.jsonl'),
      /empty\.jsonl: the query set has no queries/,
    );
  });

  test('rejects malformed relevant_lines with the line number', () => {
    const base = { id: 'x', query: 'q', relevant_files: ['a.py'] };
    for (const bad of [
      { relevant_lines: 'a.py:1' },
      { relevant_lines: [{ path: 'a.py', ranges: [{ start: 5, end: 4 }] }] },
      { relevant_lines: [{ path: 'a.py', ranges: [{ start: 0, end: 4 }] }] },
      { relevant_lines: [{ path: 'a.py' }] },
    ]) {
      assert.throws(
        () => parseQuerySet(`\n${JSON.stringify({ ...base, ...bad })}`),
        (err: unknown) => err instanceof CodesiftError && /:2: .*relevant_lines/.test(err.message),
      );
    }
  });
});
