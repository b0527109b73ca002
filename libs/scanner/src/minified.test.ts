import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minifiedDetail } from './minified.js';
import { bundleText } from './testing/bundle.js';

test('a one-line bundle is minified, whatever its name', () => {
  const detail = minifiedDetail(bundleText(50_000));
  assert.match(detail ?? '', /^minified or bundled content: 100% in lines over 500 characters/);
});

test('a minified stylesheet of a few long lines is minified', () => {
  const rule = '.a{color:#333;margin:0 auto}.b>li{padding:4px 8px;display:flex}';
  const css = `${rule.repeat(40)}\n${rule.repeat(40)}\n`;
  assert.ok(minifiedDetail(css));
});

test('ordinary code with one long SQL line is not minified', () => {
  const sql = `const q = "SELECT ${Array.from({ length: 120 }, (_, i) => `col_${i}`).join(', ')} FROM orders WHERE id = ?";\n`;
  const code = `${'function f(a, b) {\n  return a + b;\n}\n'.repeat(40)}${sql}`;
  assert.equal(minifiedDetail(code), undefined);
  // Even when the SQL line is most of the file, its spaces keep it readable.
  assert.equal(minifiedDetail(`${sql.repeat(3)}`), undefined);
});

test('a data table of long numeric rows is not minified', () => {
  const row = Array.from({ length: 300 }, (_, i) => (i * 7.31).toFixed(2)).join(',');
  const csv = `${`${row}\n`.repeat(10)}`;
  assert.equal(minifiedDetail(csv), undefined);
  const table = `export const TABLE = [${Array.from({ length: 2000 }, (_, i) => i % 97).join(', ')}];\n`;
  assert.equal(minifiedDetail(table), undefined);
});

test('a long string without code punctuation (base64, padding) is not minified', () => {
  const blob = `export const LOGO = "data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB'.repeat(200)}";\n`;
  assert.equal(minifiedDetail(blob), undefined);
  assert.equal(minifiedDetail(`const pad = '${'x'.repeat(6000)}';\n`), undefined);
});

test('small files are never minified', () => {
  assert.equal(minifiedDetail(bundleText(1500)), undefined);
});
