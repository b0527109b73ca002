import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  definitionPathWords,
  holdsDefinition,
  lookupNames,
  preferBodies,
  preferByPath,
  preferDeclarations,
  queryIdentifiers,
} from './definitions.js';
import { locationDefinitions } from './evidence.js';

describe('queryIdentifiers', () => {
  it('takes a single-word query as an identifier', () => {
    assert.deepEqual(queryIdentifiers('Graph'), ['Graph']);
    assert.deepEqual(queryIdentifiers('  addEdge '), ['addEdge']);
  });
  it('keeps code-shaped words of a longer query and skips prose', () => {
    assert.deepEqual(queryIdentifiers('where does addEdge call parse_amount in Graph.size'), [
      'addEdge',
      'parse_amount',
      'Graph.size',
    ]);
    assert.deepEqual(queryIdentifiers('how are edges inserted into the graph'), []);
    assert.deepEqual(queryIdentifiers('use std::vec::Vec here'), ['std::vec::Vec']);
  });
  it('dedupes case-insensitively and caps the count', () => {
    assert.deepEqual(queryIdentifiers('fooBar FooBar fooBar'), ['fooBar']);
    const many = Array.from({ length: 50 }, (_, i) => `name_${i}`).join(' ');
    assert.equal(queryIdentifiers(many).length, 8);
  });
});

describe('holdsDefinition', () => {
  it('matches a chunk whose range holds the definition’s first line in the same file', () => {
    const defs = [{ path: 'a.ts', startLine: 12 }];
    assert.equal(holdsDefinition({ path: 'a.ts', startLine: 1, endLine: 22 }, defs), true);
    assert.equal(holdsDefinition({ path: 'a.ts', startLine: 12, endLine: 12 }, defs), true);
    assert.equal(holdsDefinition({ path: 'a.ts', startLine: 13, endLine: 30 }, defs), false);
    assert.equal(holdsDefinition({ path: 'b.ts', startLine: 1, endLine: 22 }, defs), false);
  });
});

describe('queryIdentifiers: declarations and file names', () => {
  it('takes the name after a declaration keyword first, whatever its shape', () => {
    assert.deepEqual(queryIdentifiers('type Options struct'), ['Options']);
    assert.deepEqual(queryIdentifiers('class Command'), ['Command']);
    assert.deepEqual(queryIdentifiers('where is def parse'), ['parse']);
    assert.deepEqual(queryIdentifiers('the type of the class of problems'), []);
  });
  it('with a file name, capitalized words are symbols and the file name is not one', () => {
    assert.deepEqual(queryIdentifiers('command.go Command'), ['Command']);
    assert.deepEqual(queryIdentifiers('Command of the program'), []);
  });
});

describe('queryIdentifiers: code spans', () => {
  it("a short query's word in backticks is a name, alone or called", () => {
    assert.deepEqual(queryIdentifiers('`polyval` with timedelta64 gives wrong results'), [
      'polyval',
    ]);
    assert.deepEqual(queryIdentifiers('simple `subs()` for a piecewise fails'), ['subs']);
    assert.deepEqual(queryIdentifiers('PairGrid errors with `hue` assigned in `map`'), [
      'PairGrid',
      'hue',
      'map',
    ]);
    // The same words without backticks are prose.
    assert.deepEqual(queryIdentifiers('polyval with timedelta64 gives wrong results'), []);
  });
  it('a span of several words, a one-letter span and a long report are not names', () => {
    assert.deepEqual(queryIdentifiers('the `make html` command fails'), []);
    assert.deepEqual(queryIdentifiers('`x` is lost'), []);
    const long = `\`polyval\` gives wrong results. ${'The body tells the story at length. '.repeat(6)}`;
    assert.deepEqual(queryIdentifiers(long), []);
  });
  it('the switch off leaves spans to their shape', () => {
    assert.deepEqual(queryIdentifiers('`polyval` is wrong', undefined, { codeSpans: false }), []);
    assert.deepEqual(queryIdentifiers('`is_zero` is wrong', undefined, { codeSpans: false }), [
      'is_zero',
    ]);
  });
});

describe('preferByPath', () => {
  const defs = [{ path: 'server/options.go' }, { path: 'client/options.go' }];
  it('keeps the definitions whose path holds the most query words', () => {
    assert.deepEqual(preferByPath(defs, definitionPathWords('client options')), [defs[1]]);
  });
  it('keeps all without evidence or with one definition', () => {
    assert.deepEqual(preferByPath(defs, definitionPathWords('options')), defs);
    assert.deepEqual(preferByPath(defs, []), defs);
  });
});

describe('preferBodies', () => {
  const proto = { path: 'zlib.h', signature: 'int bound(z_stream s);' };
  const impl = { path: 'deflate.c', signature: 'int bound(z_stream s)' };
  it('drops declarations without a body when a definition has one', () => {
    assert.deepEqual(preferBodies([proto, impl]), [impl]);
  });
  it('keeps the declarations when nothing implements them, and keeps every implementation', () => {
    assert.deepEqual(preferBodies([proto]), [proto]);
    const other = { path: 'b.c', signature: 'int bound(void)' };
    assert.deepEqual(preferBodies([impl, other]), [impl, other]);
    const unknown: { path: string; signature?: string } = { path: 'x.c' };
    assert.deepEqual(preferBodies([unknown, proto]), [unknown]);
  });
});

describe('preferDeclarations', () => {
  const struct = { path: 'Sources/Parsing/SplitArguments.swift', kind: 'struct' };
  const ext = { path: 'Sources/Parsing/CommandParser.swift', kind: 'impl' };
  const ext2 = { path: 'Sources/Parsing/SplitArguments.swift', kind: 'impl' };
  it('drops impl blocks and extensions when the name is declared', () => {
    assert.deepEqual(preferDeclarations([ext, struct, ext2]), [struct]);
  });
  it('keeps them when nothing declares the name here (an extension of a library type)', () => {
    assert.deepEqual(preferDeclarations([ext, ext2]), [ext, ext2]);
    const unknown: { path: string; kind?: string } = { path: 'x.rs' };
    assert.deepEqual(preferDeclarations([unknown, ext]), [unknown]);
  });
});

describe('lookupNames', () => {
  it('tries the tails of a dotted name whose head is lowercase', () => {
    assert.deepEqual(lookupNames('cobra.OnInitialize'), ['cobra.OnInitialize', 'OnInitialize']);
    assert.deepEqual(lookupNames('Graph.addEdge'), ['Graph.addEdge']);
    assert.deepEqual(
      lookupNames('block.call'),
      ['block.call'],
      'a plain one-word tail names too much',
    );
    assert.deepEqual(lookupNames('std::vec::Vec'), ['std.vec.Vec', 'vec.Vec', 'Vec']);
  });
});

describe('locationDefinitions', () => {
  const candidates = [
    { path: 'Sources/Shop/Cart.swift' },
    { path: 'Sources/Shop/Cart.swift' },
    { path: 'Sources/Shop/Checkout.swift' },
    { path: 'Sources/Other/MyCart.swift' },
  ];
  it('finds the frame’s file whether the frame prints a bare name, a relative or an absolute path', () => {
    for (const path of [
      'Cart.swift',
      'Shop/Cart.swift',
      '/Users/me/shop/Sources/Shop/Cart.swift',
    ]) {
      assert.deepEqual(
        locationDefinitions(candidates, { path, line: 11 }),
        [{ path: 'Sources/Shop/Cart.swift', startLine: 11 }],
        path,
      );
    }
  });
  it('gives nothing for a file the candidates do not hold, or without a location', () => {
    assert.deepEqual(locationDefinitions(candidates, { path: '/home/u/tool.py', line: 3 }), []);
    assert.deepEqual(locationDefinitions(candidates, null), []);
    assert.deepEqual(locationDefinitions(candidates, { path: 'Cart.swift', line: null }), [
      { path: 'Sources/Shop/Cart.swift', startLine: 1 },
    ]);
  });
});
