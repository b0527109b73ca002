import assert from 'node:assert/strict';
import { test } from 'node:test';
import { noEvidenceExplanation, planEvidence } from './min-evidence.js';
import type { PlannedTerm, QueryPlan } from './types.js';

const term = (t: string, source: PlannedTerm['source']): PlannedTerm => ({
  term: t,
  weight: 1,
  source,
  from: t,
});

test("the query's own terms are its words and identifiers in any spelling, not guesses", () => {
  const terms = [
    term('addedge', 'original'),
    term('add_edge', 'case-variant'),
    term('add', 'identifier-part'),
    term('insert', 'synonym'),
    term('graphbuilder', 'rewrite'),
    term('nodemap', 'bridge'),
    term('addedge', 'original'),
  ];
  assert.deepEqual(planEvidence(terms, true), {
    enabled: true,
    ownTerms: ['addedge', 'add_edge'],
    outcome: null,
  });
  assert.deepEqual(planEvidence(terms, false).ownTerms, []);
});

test("a segment of a qualified name or path is the user's own, a sub-word is not", () => {
  const part = (t: string, from: string): PlannedTerm => ({
    term: t,
    weight: 0.5,
    source: 'identifier-part',
    from,
  });
  const own = planEvidence(
    [
      part('rack', 'Rack::Reader'),
      part('adapters', 'requests.adapters.HTTPAdapter'),
      part('http', 'requests.adapters.HTTPAdapter'),
      part('src', 'src/a.ts'),
      part('max', 'max_file_bytes'),
      part('frobnicate', 'FrobnicateWidget'),
    ],
    true,
  ).ownTerms;
  assert.deepEqual(own, ['rack', 'adapters', 'src']);
});

test('the "no results" explanation: only for a refused search, naming the vector side when it ran', () => {
  const evidence = (outcome: QueryPlan['evidence']['outcome']) => ({
    evidence: { enabled: true, ownTerms: ['frobnicate'], outcome },
  });
  assert.equal(noEvidenceExplanation(undefined), null);
  assert.equal(noEvidenceExplanation(evidence(null)), null);
  assert.equal(
    noEvidenceExplanation(evidence({ kind: 'own-terms', similarity: null, floor: null })),
    null,
  );
  const keywordOnly = noEvidenceExplanation(
    evidence({ kind: 'none', similarity: null, floor: null }),
  );
  assert.match(keywordOnly ?? '', /^none of its own words or identifiers is in the index \(/);
  assert.doesNotMatch(keywordOnly ?? '', /vector/);
  assert.match(
    noEvidenceExplanation(evidence({ kind: 'none', similarity: 0.21, floor: 0.3 })) ?? '',
    /, and no vector hit is closer than text without meaning gets \(/,
  );
});
