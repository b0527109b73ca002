import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuery } from '@codesift/query';
import { focusMultiplier, planFocus } from './focus.js';
import { isMetadataPath, METADATA_MULTIPLIER, namesMetadata } from './metadata.js';

const SETTINGS = { scoring: true, multiplier: 0.5, reports: true, docMultiplier: 0.7 };

describe('repository metadata', () => {
  it('recognises templates, CI workflows, funding and contribution files', () => {
    for (const p of [
      '.github/ISSUE_TEMPLATE/bug.yml',
      '.github/workflows/ci.yml',
      'acme/api/.github/FUNDING.yml',
      'CONTRIBUTING.md',
      'docs/CODE_OF_CONDUCT.rst',
      '.gitlab-ci.yml',
      '.travis.yml',
    ]) {
      assert.ok(isMetadataPath(p), p);
    }
    for (const p of ['src/github/client.py', 'lib/workflow.rb', 'src/contributing_factor.go']) {
      assert.ok(!isMetadataPath(p), p);
    }
  });

  it('is demoted for a code question, and left alone when the query names it', () => {
    const code = planFocus(parseQuery('amount is rounded wrong when parsing'), undefined, SETTINGS);
    assert.equal(code.metadataMultiplier, METADATA_MULTIPLIER);
    assert.equal(focusMultiplier(code, '.github/ISSUE_TEMPLATE/bug.yml'), METADATA_MULTIPLIER);
    assert.equal(focusMultiplier(code, 'src/amount.py'), 1);

    for (const q of [
      'import github.com/pkg/errors in renderers',
      'gitlab.example.org/group/tool',
    ]) {
      assert.equal(namesMetadata(parseQuery(q)), null, q);
    }
    for (const q of ['the CI workflow fails on windows', 'fix .github/ISSUE_TEMPLATE/bug.yml']) {
      const parsed = parseQuery(q);
      assert.ok(namesMetadata(parsed) !== null, q);
      assert.equal(planFocus(parsed, undefined, SETTINGS).metadataMultiplier, 1, q);
    }
    const off = planFocus(parseQuery('amount is rounded wrong'), undefined, {
      ...SETTINGS,
      docMultiplier: 1,
    });
    assert.equal(off.metadataMultiplier, 1, 'off with doc demotion');
  });
});
