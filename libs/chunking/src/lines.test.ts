import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SourceLines } from './lines.js';

test('line index handles LF, CRLF, trailing newlines and empty text', () => {
  const cases: [string, string[]][] = [
    ['', []],
    ['a', ['a']],
    ['a\n', ['a']],
    ['a\n\n', ['a', '']],
    ['a\r\nb\r\n', ['a', 'b']],
    ['a\r\n\r\nb', ['a', '', 'b']],
    ['\n', ['']],
    ['x\ry\nz', ['x\ry', 'z']],
  ];
  for (const [text, expected] of cases) {
    const lines = new SourceLines(text);
    assert.equal(lines.count, expected.length, JSON.stringify(text));
    for (let l = 1; l <= lines.count; l++) {
      assert.equal(lines.slice(l, l), expected[l - 1], `${JSON.stringify(text)} line ${l}`);
    }
  }
  const crlf = new SourceLines('one\r\ntwo\r\nthree\r\n');
  assert.equal(crlf.slice(1, 3), 'one\r\ntwo\r\nthree');
  assert.equal(crlf.chars(1, 2), 'one\r\ntwo'.length);
  assert.deepEqual(crlf.trim(1, 3), [1, 3]);
  assert.deepEqual(new SourceLines(' \n\tx\n \r\n').trim(1, 3), [2, 2]);
  assert.equal(new SourceLines(' \n\t\n').trim(1, 2), null);
});

test('lineOf: the line an offset falls on, a terminator on the line it ends', () => {
  const lines = new SourceLines('ab\r\ncd\n\nef\n');
  const at = (ch: string, nth = 0) => {
    let i = -1;
    for (let k = 0; k <= nth; k++) i = lines.text.indexOf(ch, i + 1);
    return i;
  };
  assert.equal(lines.lineOf(0), 1);
  assert.equal(lines.lineOf(at('\r')), 1);
  assert.equal(lines.lineOf(at('\n')), 1);
  assert.equal(lines.lineOf(at('c')), 2);
  assert.equal(lines.lineOf(at('\n', 2)), 3);
  assert.equal(lines.lineOf(at('f')), 4);
  // Past the final terminator there is no fifth line.
  assert.equal(lines.lineOf(lines.text.length), 4);
  for (let line = 1; line <= lines.count; line++) {
    assert.equal(lines.lineOf(lines.startOf(line)), line);
    assert.equal(lines.lineOf(lines.endOf(line)), line);
  }
  assert.equal(new SourceLines('').lineOf(0), 1);
});
