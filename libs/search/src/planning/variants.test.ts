import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuery } from '@codesift/query';
import { plannerConfigFrom } from '../search-config.js';
import { DEFAULT_PLANNER_CONFIG, planText } from './plan-query.js';
import type { PlanOptions, QueryPlan } from './types.js';
import { codeEntities, isReport, summaryLine } from './variants.js';

const config = plannerConfigFrom();

function plan(query: string, options: PlanOptions = {}): QueryPlan {
  return planText(query, options, config).plan;
}

const REPORT = [
  'Session cookie lost after redirect to login page',
  '',
  'When the user is sent to the login page the `SessionStore.load` call returns',
  'an empty session, although `cookies.get_cookie_header` still holds the id.',
  'Steps: start the app, sign in, follow a redirect, then reload the page.',
  'Expected the session to survive; got a fresh one and the user signs in again.',
  'Traceback (most recent call last):',
  '  File "app/session/store.py", line 41, in load',
  '    data = self.backend.read(key)',
  'KeyError: session',
].join('\n');

describe('query variants (planning)', () => {
  it('are off with 0 or 1: the plan is what it was', () => {
    for (const options of [{ variants: 0 }, { variants: 1 }]) {
      const p = plan(REPORT, options);
      assert.deepEqual(p.variants.list, []);
      assert.ok(!p.reasons.some((r) => r.startsWith('variants:')));
    }
  });

  it("by default: a report's summary and entities; a short query has none", () => {
    assert.equal(DEFAULT_PLANNER_CONFIG.variants, 3);
    assert.deepEqual(
      plan(REPORT).variants.list.map((v) => v.kind),
      ['words', 'summary', 'entities'],
    );
    const short = plan('why does parse_amount reject Decimal input');
    assert.deepEqual(short.variants.list, [], 'identifiers views are not on by default');
    assert.ok(!short.reasons.some((r) => r.startsWith('variants:')));
  });

  it('a pasted report: the query itself, its summary line, the code it names', () => {
    const p = plan(REPORT, { variants: 3 });
    assert.deepEqual(
      p.variants.list.map((v) => v.kind),
      ['words', 'summary', 'entities'],
    );
    const [words, summary, entities] = p.variants.list;
    assert.deepEqual(words!.keyword, p.keyword.terms, 'the first variant is the query as planned');
    assert.equal(summary!.text, 'Session cookie lost after redirect to login page');
    assert.ok(summary!.keyword.some((t) => t.term === 'cooki' || t.term.startsWith('cookie')));
    assert.equal(summary!.vector.run, false, 'the query itself embeds its opening already');
    const embedded = plan(REPORT, { variants: 3, variantVectors: true }).variants.list[1]!;
    assert.ok(embedded.vector.run, 'asked for: a summary is prose, it is embedded');
    assert.match(entities!.text, /SessionStore\.load/);
    assert.match(entities!.text, /cookies\.get_cookie_header/);
    assert.match(entities!.text, /app\/session\/store\.py/, 'the frame of the user code');
    assert.equal(entities!.vector.run, false, 'identifiers alone are not embedded');
    assert.ok(p.reasons.some((r) => r.startsWith('variants: words, summary, entities')));
  });

  it('the count caps the list, the query itself included', () => {
    assert.deepEqual(
      plan(REPORT, { variants: 2 }).variants.list.map((v) => v.kind),
      ['words', 'summary'],
    );
  });

  it('a short query mixing code and prose: its identifiers alone; prose alone has no other view', () => {
    const mixed = plan('why does parse_amount reject Decimal input', { variants: 3 });
    assert.deepEqual(
      mixed.variants.list.map((v) => [v.kind, v.text]),
      [
        ['words', 'why does parse_amount reject Decimal input'],
        ['identifiers', 'parse_amount'],
      ],
    );
    const prose = plan('where are jobs retried with backoff', { variants: 3 });
    assert.deepEqual(prose.variants.list, []);
    assert.match(prose.reasons.at(-1)!, /no other view/);
    assert.deepEqual(plan('parse_amount', { variants: 3 }).variants.list, [], 'identifiers only');
  });

  it('kinds restrict the views; a vector-less plan embeds no view', () => {
    const onlySummary = plan(REPORT, { variants: 3, variantKinds: ['summary'] });
    assert.deepEqual(
      onlySummary.variants.list.map((v) => v.kind),
      ['words', 'summary'],
    );
    const noVectors = plan(REPORT, { variants: 3, vectorAvailable: false });
    assert.ok(noVectors.variants.list.every((v) => !v.vector.run));
  });

  it('is deterministic and JSON-clean', () => {
    const a = plan(REPORT, { variants: 3, variantMerge: 'rrf' });
    assert.deepEqual(a, plan(REPORT, { variants: 3, variantMerge: 'rrf' }));
    assert.deepEqual(JSON.parse(JSON.stringify(a)), a);
    assert.equal(a.variants.merge, 'rrf');
  });

  it('summaryLine skips template labels and headings; isReport needs length and lines', () => {
    assert.equal(
      summaryLine('### Describe the bug\n\nThe parser drops trailing commas\nmore'),
      'The parser drops trailing commas',
    );
    assert.equal(
      summaryLine('**Steps**\nExpected:\n# Upload stalls at 99 percent\n'),
      'Upload stalls at 99 percent',
    );
    assert.equal(summaryLine('short\nlonger line here'), null, 'a first line too short to search');
    assert.equal(isReport(parseQuery('x'.repeat(500))), false, 'one line');
    assert.equal(isReport(parseQuery(REPORT)), true);
  });

  it('codeEntities: identifiers, qualified names, paths and frames, once each, no prose', () => {
    assert.deepEqual(
      codeEntities(
        parseQuery('call os.path.join then os.path.join in src/a.ts and MAX_SIZE words'),
      ),
      ['os.path.join', 'src/a.ts', 'MAX_SIZE'],
    );
  });
});
