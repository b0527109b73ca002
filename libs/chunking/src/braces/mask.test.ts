import assert from 'node:assert/strict';
import { test } from 'node:test';
import { swift } from '../languages/swift.js';
import { maskLiterals } from './mask.js';
import type { BraceLexis } from './spec.js';

/** The code left after masking, spaces squeezed, for compact expectations. */
function codeOf(text: string, lexis: BraceLexis = swift.lexis): string {
  const { code } = maskLiterals(text, lexis);
  assert.equal(code.length, text.length, 'offsets are kept');
  return code.replace(/\s+/g, ' ').trim();
}

test('strings are blanked, quotes, braces and all', () => {
  assert.equal(codeOf('let a = "}{" + "x\\"}"; f()'), 'let a = + ; f()');
});

test('an interpolation holding a string with a quote and braces does not end its string', () => {
  // Read naively, the `"` before `}` ends the string and the `}` is code.
  assert.equal(codeOf('let s = "a \\(m.map { "\\($0)}" }) {"\n}'), 'let s = }');
});

test('multi-line strings are blanked across their lines, line breaks included', () => {
  const text = 'let s = """\n  }\n  "quoted" \\(x) }\n  """\nfunc f() {}';
  const { code } = maskLiterals(text, swift.lexis);
  // One line break is left: the one after the closing quotes. A statement never ends inside.
  assert.equal(code.split('\n').length, 2);
  assert.equal(codeOf(text), 'let s = func f() {}');
});

test('raw strings end at their own delimiter; only a raw escape interpolates', () => {
  assert.equal(codeOf('let r = #"a "quoted" } \\(no) "#; g()'), 'let r = ; g()');
  assert.equal(codeOf('let r = ##"a "# } "##; g()'), 'let r = ; g()');
  assert.equal(codeOf('let r = #"\\#(f(")"))"#; g()'), 'let r = ; g()');
});

test('nested block comments end at their matching close; comments are listed, strings are not', () => {
  const text = 'a /* x /* } */ still } */ b // }\nc "/* not a comment */" d';
  const { comments } = maskLiterals(text, swift.lexis);
  assert.equal(codeOf(text), 'a b c d');
  assert.deepEqual(
    comments.map((c) => text.slice(c.from, c.to)),
    ['/* x /* } */ still } */', '// }'],
  );
});

test('a single-line string left open ends at its line', () => {
  assert.equal(codeOf('let s = "open {\nfunc f() {}'), 'let s = func f() {}');
});

test('a language with character literals and flat comments is one table away', () => {
  const lexis: BraceLexis = {
    lineComments: ['//', '#'],
    blockComment: { open: '/*', close: '*/', nests: false },
    strings: [
      { open: '"', close: '"', multiline: false, escape: '\\' },
      { open: "'", close: "'", multiline: false, escape: '\\' },
    ],
  };
  assert.equal(codeOf("c = '}' + '\\'' { /* /* */ } # }", lexis), 'c = + { }');
});
