import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeText, isBinaryContent } from './content.js';

const bytes = (s: string) => new TextEncoder().encode(s);

test('isBinaryContent flags a NUL byte in the first 8 KB', () => {
  assert.equal(isBinaryContent(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x41])), true);
  const late = new Uint8Array(9000).fill(0x61);
  late[8500] = 0;
  assert.equal(isBinaryContent(late), false, 'only the first 8 KB are sniffed');
  late[8000] = 0;
  assert.equal(isBinaryContent(late), true);
});

test('isBinaryContent flags many control bytes but not tabs, newlines or ANSI colours', () => {
  assert.equal(isBinaryContent(bytes('const a = 1;\r\n\tb();\f\n')), false);
  assert.equal(isBinaryContent(bytes('\x1b[31mred\x1b[0m\n'.repeat(20))), false);
  assert.equal(isBinaryContent(bytes('ok\x01\x02\x03\x04\x05\x06text\x07')), true);
  assert.equal(isBinaryContent(new Uint8Array(0)), false);
  assert.equal(isBinaryContent(bytes('héllo wörld ✓')), false, 'UTF-8 multibyte is text');
});

test('decodeText decodes valid UTF-8 losslessly', () => {
  assert.deepEqual(decodeText(bytes('héllo ✓')), { text: 'héllo ✓', lossy: false });
});

test('decodeText replaces invalid sequences and says so', () => {
  const { text, lossy } = decodeText(Uint8Array.from([0x68, 0x69, 0xff, 0x21]));
  assert.equal(lossy, true);
  assert.equal(text, 'hi\uFFFD!');
});

test('decodeText strips a UTF-8 BOM but keeps a later U+FEFF', () => {
  const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes('x\uFEFFy')]);
  assert.deepEqual(decodeText(withBom), { text: 'x\uFEFFy', lossy: false });
});
