import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findBoilerplate, insideBoilerplate, stripBoilerplate } from './boilerplate.js';

const SHOW_VERSIONS = [
  'INSTALLED VERSIONS',
  '------------------',
  'commit: None',
  'python: 3.9.1 (default, Jan  1 2021, 00:00:00)',
  '[GCC 9.3.0]',
  'OS: Linux',
  'machine: x86_64',
  'LANG: en_US.UTF-8',
  '',
  'libfoo: 1.2.3',
  'numpy: 1.19.4',
  'pytest: 6.2.1',
  'sphinx: None',
].join('\n');

describe('findBoilerplate / stripBoilerplate', () => {
  it('cuts an environment report with its heading, keeping the question', () => {
    const q = `Merge drops attrs\nAfter merge the attrs are shared.\n\n<details><summary>Output of show_versions()</summary>\n\n${SHOW_VERSIONS}\n\n</details>\n`;
    const s = stripBoilerplate(q);
    assert.equal(s.removed.length, 1);
    assert.equal(s.removed[0]!.kind, 'environment');
    assert.match(s.text, /Merge drops attrs/);
    assert.match(s.text, /attrs are shared/);
    assert.doesNotMatch(s.text, /numpy|pytest|INSTALLED|show_versions/);
  });

  it('cuts a JSON version report and pip freeze lines', () => {
    const json = [
      'Proxy fails',
      '',
      '## System Information',
      '',
      '```json',
      '{',
      '  "idna": {',
      '    "version": "3.3"',
      '  },',
      '  "implementation": {',
      '    "name": "CPython",',
      '    "version": "3.8.12"',
      '  },',
      '  "urllib3": {',
      '    "version": "1.26.7"',
      '  }',
      '}',
      '```',
    ].join('\n');
    const s = stripBoilerplate(json);
    assert.equal(s.text.trim(), 'Proxy fails');
    const pip = 'Crash on import\nnumpy==1.19.4\npandas==1.1.4\nscipy==1.5.3\n';
    assert.equal(stripBoilerplate(pip).text.trim(), 'Crash on import');
  });

  it('cuts HTML comments and task-list checklists of issue templates', () => {
    const q =
      'Bad output\n<!-- Please describe the bug -->\nThe plot is empty.\n- [X] Minimal example\n- [ ] Complete example\n';
    const s = stripBoilerplate(q);
    assert.deepEqual(
      s.removed.map((b) => b.kind),
      ['comment', 'checklist'],
    );
    assert.doesNotMatch(s.text, /Please describe|Minimal example/);
    assert.match(s.text, /The plot is empty/);
  });

  it('leaves code, prose and short key/value text alone', () => {
    for (const q of [
      'x = 1\ny = 2\nz = compute(x, y)\nprint(z)',
      'timeout: 30\nretries: 5\nhost: localhost',
      'where is the version parsed? version: 1.2.3',
      'how are edges inserted into the graph',
      '- [ ] one task',
    ]) {
      assert.deepEqual(findBoilerplate(q), [], q);
      assert.equal(stripBoilerplate(q).text, q);
    }
  });

  it('keeps a query that is nothing but boilerplate', () => {
    const s = stripBoilerplate(SHOW_VERSIONS);
    assert.equal(s.text, SHOW_VERSIONS);
    assert.equal(s.removed.length, 0);
  });

  it('answers whether an offset lies inside a block', () => {
    const q = `Title\n${SHOW_VERSIONS}\nafter`;
    const blocks = findBoilerplate(q);
    assert.equal(insideBoilerplate(blocks, 0), false);
    assert.equal(insideBoilerplate(blocks, q.indexOf('numpy')), true);
    assert.equal(insideBoilerplate(blocks, q.indexOf('after')), false);
  });
});
