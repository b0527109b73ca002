import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openLocalEngine } from '@codesift/search';
import { parseQuerySet } from './query-set.js';
import { type EvalReport, runEval } from './runner.js';

describe('runEval over a real keyword index', () => {
  let root: string;
  let report: EvalReport;

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'codesift-runner-'));
    mkdirSync(path.join(root, 'src'));
    const filler = Array.from({ length: 60 }, (_, i) => `def filler_${i}():\n    return ${i}\n`);
    writeFileSync(
      path.join(root, 'src', 'headers.py'),
      `${filler.join('\n')}\ndef parse_header(line):\n    name, value = line.split(':')\n    return name, value\n`,
    );
    writeFileSync(path.join(root, 'src', 'pages.py'), 'def render_page(page):\n    return page\n');
    // Eleven one-line files BM25 scores alike (ties break by path): the
    // answer is the eleventh window, past the baseline's first 10.
    for (let i = 0; i <= 10; i++) {
      writeFileSync(path.join(root, 'src', `w${String(i).padStart(2, '0')}.py`), `needle = ${i}\n`);
    }
    const headerLine = 60 * 3 + 1;
    const queries = parseQuerySet(
      [
        {
          id: 'header',
          query: 'parse_header',
          relevant_files: ['src/headers.py'],
          relevant_lines: [
            { path: 'src/headers.py', ranges: [{ start: headerLine, end: headerLine + 2 }] },
          ],
        },
        { id: 'page', query: 'render_page', relevant_files: ['src/pages.py'] },
        {
          id: 'spread',
          query: 'needle',
          relevant_files: ['src/w10.py'],
          relevant_lines: [{ path: 'src/w10.py', ranges: [{ start: 1, end: 1 }] }],
        },
      ]
        .map((q) => JSON.stringify(q))
        .join('\n'),
    );
    report = await runEval({
      queries,
      queryField: 'query',
      target: { kind: 'repo', root, indexPath: path.join(root, '.codesift', 'index.db') },
      openEngine: (indexPath) => openLocalEngine({ indexPath, embedder: null, env: {} }),
    });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('scores the file list, the chunk list and answer coverage side by side', () => {
    const header = report.queries.find((q) => q.id === 'header')!;
    assert.equal(header.codesift.files[0], 'src/headers.py');
    const chunk = header.chunks.codesift.hits[0]!;
    assert.equal(chunk.path, 'src/headers.py');
    assert.ok(chunk.startLine <= 181 && chunk.endLine >= 183, 'the defining chunk comes first');
    assert.equal(header.chunks.codesift.firstRelevantRank, 1);
    assert.equal(header.chunks.codesift.coverage?.atHits, 1);
    assert.equal(header.codesift.coverage?.atHits, 1);
    const window = header.chunks.bm25!.hits[0]!;
    assert.deepEqual([window.path, window.startLine], ['src/headers.py', 161]);
    assert.equal(header.bm25?.coverage, undefined, 'whole files get no coverage');

    const page = report.queries.find((q) => q.id === 'page')!;
    assert.equal(page.chunks.codesift.coverage, undefined, 'no line answers, no coverage');
    assert.equal(report.overall.chunks.codesift.count, 3);
    assert.equal(report.overall.coverage?.codesiftChunks.count, 2, 'only the queries with lines');
    assert.equal(report.baseline?.windowLines, 40);
  });

  test("the baseline's coverage: at 10 hits, at the line budget, at codesift's returned lines", () => {
    const header = report.queries.find((q) => q.id === 'header')!;
    const lines = header.chunks.codesift.coverage!.linesReturned;
    assert.ok(lines < 23, `codesift returns short units, not a 40-line window (${lines})`);
    const bm25 = header.chunks.bm25!.coverage!;
    assert.equal(bm25.atHits, 1, 'the window 161..200 holds lines 181..183');
    assert.equal(bm25.atBudget, 1);
    // Cut to codesift's line count, the window 161.. ends before line 183.
    const seen = Math.max(0, Math.min(183, 160 + lines) - 181 + 1);
    assert.equal(bm25.atMatchedLines, seen / 3);

    const spread = report.queries.find((q) => q.id === 'spread')!.chunks.bm25!;
    assert.equal(spread.hits.length, 10, 'the chunk list is the first 10 windows');
    assert.equal(spread.coverage?.atHits, 0, 'the answer is the 11th window');
    assert.equal(spread.coverage?.atBudget, 1, 'which the 400-line budget still reaches');

    const overall = report.overall.coverage!.bm25Windows!;
    assert.equal(overall.count, 2);
    assert.equal(overall.atHits, 0.5);
    assert.equal(overall.atBudget, 1);
    assert.ok(overall.atMatchedLines !== undefined, 'reported beside codesift');
  });
});
