import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripBoilerplate } from './boilerplate.js';
import {
  isTemplatePath,
  normalizeTemplateLine,
  TEMPLATE_PATH_HINTS,
  templateLines,
} from './templates.js';

const FORM = `name: Bug report
description: Tell us what went wrong
body:
  - type: textarea
    attributes:
      label: What happened?
      description: |
        Describe the problem you ran into,
        with the smallest example you can.
  - type: input
    attributes:
      label: Reproducible example
      placeholder: paste code here
`;

const MARKDOWN = `---
name: Bug
about: Report something broken
labels: bug
---
### Expected behaviour

**Actual behaviour:**
- [ ] I read the guide
`;

describe('templates', () => {
  it('finds template files where repositories keep them', () => {
    for (const p of [
      '.github/ISSUE_TEMPLATE/bug.yml',
      '.github/PULL_REQUEST_TEMPLATE.md',
      'acme/api/.github/ISSUE_TEMPLATE/config.yml',
      '.gitlab/issue_templates/Bug.md',
      'docs/ISSUE_TEMPLATE.md',
    ]) {
      assert.ok(isTemplatePath(p), p);
    }
    for (const p of ['.github/workflows/ci.yml', 'src/template.py', 'docs/guide.md']) {
      assert.ok(!isTemplatePath(p), p);
    }
  });

  it('every template path holds one of the hints a store narrows by', () => {
    const dirs = ['', 'acme/api/', 'docs/'];
    const names = [
      '.github/ISSUE_TEMPLATE/bug.yml',
      '.github/issue_template/Bug.md',
      '.github/PULL_REQUEST_TEMPLATE/feature.md',
      '.github/DISCUSSION_TEMPLATE/ideas.yml',
      '.github/PULL_REQUEST_TEMPLATE.md',
      '.github/CONTRIBUTING.md',
      '.gitlab/issue_templates/Bug.md',
      '.gitlab/merge_request_templates/Default.md',
      '.gitea/ISSUE_TEMPLATE.md',
      '.gitea/PULL_REQUEST_TEMPLATE/x.md',
      'ISSUE_TEMPLATE',
      'Pull_Request_Template.md',
    ];
    for (const p of dirs.flatMap((d) => names.map((n) => d + n))) {
      assert.ok(isTemplatePath(p), p);
      const lower = p.toLowerCase();
      assert.ok(
        TEMPLATE_PATH_HINTS.some((h) => lower.includes(h)),
        `${p} holds none of ${TEMPLATE_PATH_HINTS.join(', ')}`,
      );
    }
  });

  it('normalizes Markdown markers, case and a trailing colon', () => {
    assert.equal(normalizeTemplateLine('### Steps to Reproduce:'), 'steps to reproduce');
    assert.equal(normalizeTemplateLine('**steps to reproduce**'), 'steps to reproduce');
    assert.equal(normalizeTemplateLine('- [x] I read   the guide'), 'i read the guide');
    assert.equal(normalizeTemplateLine('```python'), '', 'a code fence is never template text');
  });

  it('collects the lines a reporter sees from issue forms and Markdown templates', () => {
    const lines = templateLines([
      { path: '.github/ISSUE_TEMPLATE/bug.yml', text: FORM },
      { path: '.github/ISSUE_TEMPLATE/bug.md', text: MARKDOWN },
    ]);
    for (const l of [
      'bug report',
      'what happened?',
      'describe the problem you ran into,',
      'with the smallest example you can.',
      'reproducible example',
      'expected behaviour',
      'actual behaviour',
      'i read the guide',
      'report something broken',
    ]) {
      assert.ok(lines.has(l), l);
    }
    assert.ok(!lines.has('type: textarea'));
    assert.ok(!lines.has('bug'), 'the labels line is not shown to a reporter');
  });

  it("cuts a report's template lines, and only with the templates given", () => {
    const lines = templateLines([{ path: '.github/ISSUE_TEMPLATE/bug.yml', text: FORM }]);
    const report = [
      '### What happened?',
      '',
      'parse_amount rounds 12.345 down',
      '',
      '### Reproducible example',
      '',
      'parse_amount("12.345")',
    ].join('\n');
    const cut = stripBoilerplate(report, lines);
    assert.deepEqual(
      cut.removed.map((b) => b.kind),
      ['template', 'template'],
    );
    assert.ok(!cut.text.includes('What happened'));
    assert.ok(cut.text.includes('parse_amount rounds 12.345 down'));
    assert.ok(cut.text.includes('parse_amount("12.345")'));
    assert.equal(stripBoilerplate(report).text, report);
  });
});
