import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutLinks, filePathOfLink } from './links.js';

describe('links in a query', () => {
  it('cuts a link to a page, with the sentence punctuation left where it was', () => {
    const q = 'Default modifiers.\nCloses https://github.com/square/javapoet/issues/110.';
    const out = cutLinks(q);
    assert.equal(out.text, 'Default modifiers.\nCloses .');
    assert.deepEqual(out.links, [{ start: 26, end: 71, kept: '' }]);
    assert.equal(q.slice(26, 71), 'https://github.com/square/javapoet/issues/110');
  });

  it('keeps the file path of a link to a file in a repository browser', () => {
    const q =
      'the offset is dropped here: https://github.com/o/r/blob/ba786bc/seaborn/_core/scales.py#L377-L382 (see it)';
    assert.equal(cutLinks(q).text, 'the offset is dropped here: seaborn/_core/scales.py (see it)');
    assert.equal(
      filePathOfLink('https://gitlab.com/g/p/-/blob/main/src/app%20x/main.rs?plain=1'),
      'src/app x/main.rs',
    );
    // A directory or a branch names no file.
    assert.equal(filePathOfLink('https://github.com/o/r/tree/main/src/core'), '');
    assert.equal(filePathOfLink('https://stackoverflow.com/q/48826611'), '');
  });

  it('leaves a bare address: it is the value asked about, not a pointer', () => {
    for (const q of [
      'Getting http://.example.com raises UnicodeError',
      'requests.get("http://localhost:8080/") hangs',
    ]) {
      const out = cutLinks(q);
      assert.equal(out.text, q);
      assert.deepEqual(out.links, []);
    }
  });

  it('cuts links inside brackets and markdown images up to the bracket', () => {
    const q = 'see [this line](https://example.org/a/b) and ![image](https://x.io/i.png)';
    assert.equal(cutLinks(q).text, 'see [this line]() and ![image]()');
  });
});
