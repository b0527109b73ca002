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
    assert.equal(report.overall.chunks.codesift.count, 2);
    assert.equal(report.overall.chunks.bm25?.acc1, 1);
    assert.equal(report.overall.coverage?.codesiftChunks.count, 1, 'only the query with lines');
    assert.equal(report.overall.coverage?.bm25Windows?.atHits, 1);
    assert.equal(report.baseline?.windowLines, 40);
  });
});
