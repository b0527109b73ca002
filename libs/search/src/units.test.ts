import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  capPerFile,
  enclosingDefinition,
  insideOneDefinition,
  mergeTouching,
  toUnits,
  type UnitDefinition,
  type UnitRange,
  unitPaths,
  widenToDefinition,
} from './units.js';

const hit = (
  id: string,
  path: string,
  startLine: number,
  endLine: number,
  symbol: string | null = null,
): UnitRange & { id: string } => ({ id, path, startLine, endLine, symbol, kind: 'function' });

const defs: UnitDefinition[] = [
  { qualifiedName: 'Parser', kind: 'class', startLine: 1, endLine: 300 },
  { qualifiedName: 'Parser.parse', kind: 'method', startLine: 10, endLine: 110 },
  { qualifiedName: 'Parser.tiny', kind: 'method', startLine: 120, endLine: 125 },
];

/** A class with three members, then two top-level functions. */
const members: UnitDefinition[] = [
  { qualifiedName: 'Lexer', kind: 'class', startLine: 1, endLine: 400 },
  { qualifiedName: 'Lexer.next', kind: 'method', startLine: 10, endLine: 30 },
  { qualifiedName: 'Lexer.peek', kind: 'method', startLine: 60, endLine: 70 },
  { qualifiedName: 'Lexer.far', kind: 'method', startLine: 300, endLine: 310 },
  { qualifiedName: 'helper', kind: 'function', startLine: 410, endLine: 420 },
  { qualifiedName: 'other', kind: 'function', startLine: 430, endLine: 440 },
];

describe('enclosingDefinition / widenToDefinition', () => {
  it('widens a window of a definition that fits to the whole definition', () => {
    const w = widenToDefinition(hit('a', 'p.py', 60, 110, 'Parser.parse'), defs);
    assert.deepEqual([w.startLine, w.endLine], [10, 110]);
  });
  it('leaves a hit whose definition is too long, or that already is the definition', () => {
    assert.equal(enclosingDefinition(hit('a', 'p.py', 1, 80, 'Parser'), defs), null);
    assert.equal(enclosingDefinition(hit('a', 'p.py', 10, 110, 'Parser.parse'), defs, 50), null);
    assert.equal(enclosingDefinition(hit('a', 'p.py', 120, 125, 'Parser.tiny'), defs), null);
  });
  it('keeps the leading lines a window starts with (doc comment, decorators) and widens the rest', () => {
    // A C function's first window starts at its comment, two lines above the
    // signature where the symbol table starts the definition.
    const w = widenToDefinition(hit('a', 'p.py', 8, 60, 'Parser.parse'), defs);
    assert.deepEqual([w.startLine, w.endLine], [8, 110]);
    // The limit is on the definition (101 lines), not on it with the leading lines.
    assert.equal(enclosingDefinition(hit('a', 'p.py', 8, 60, 'Parser.parse'), defs, 100), null);
    assert.notEqual(enclosingDefinition(hit('a', 'p.py', 8, 60, 'Parser.parse'), defs, 101), null);
    // A window that already ends where the definition ends is the whole definition.
    assert.equal(enclosingDefinition(hit('a', 'p.py', 7, 110, 'Parser.parse'), defs), null);
    // A hit ending before the definition starts is not part of it.
    assert.equal(enclosingDefinition(hit('a', 'p.py', 2, 9, 'Parser.parse'), defs), null);
  });
  it('needs the symbol path to name the definition and the definition to contain the hit', () => {
    assert.equal(enclosingDefinition(hit('a', 'p.py', 60, 110, null), defs), null);
    assert.equal(enclosingDefinition(hit('a', 'p.py', 60, 110, 'Other.parse'), defs), null);
    assert.equal(enclosingDefinition(hit('a', 'p.py', 100, 130, 'Parser.parse'), defs), null);
  });
});

describe('mergeTouching', () => {
  it('merges overlapping and adjacent hits of one file at the best rank', () => {
    const merged = mergeTouching([
      hit('a', 'x.go', 20, 40),
      hit('b', 'y.go', 1, 10),
      hit('c', 'x.go', 42, 50),
      hit('d', 'x.go', 5, 25),
    ]);
    assert.deepEqual(
      merged.map((h) => [h.id, h.path, h.startLine, h.endLine]),
      [
        ['a', 'x.go', 5, 50],
        ['b', 'y.go', 1, 10],
      ],
    );
  });
  it('keeps hits apart when they are further apart than the gap, in other files, or too long together', () => {
    assert.equal(mergeTouching([hit('a', 'x.go', 1, 10), hit('b', 'x.go', 14, 20)]).length, 2);
    assert.equal(mergeTouching([hit('a', 'x.go', 1, 10), hit('b', 'z.go', 11, 20)]).length, 2);
    assert.equal(mergeTouching([hit('a', 'x.go', 1, 80), hit('b', 'x.go', 81, 160)]).length, 2);
  });
  it('a grown range absorbs a later kept hit it now touches', () => {
    const merged = mergeTouching([
      hit('a', 'x.go', 1, 10),
      hit('b', 'x.go', 30, 40),
      hit('c', 'x.go', 11, 29),
    ]);
    assert.deepEqual(
      merged.map((h) => [h.id, h.startLine, h.endLine]),
      [['a', 1, 40]],
    );
  });
});

describe('insideOneDefinition', () => {
  const together = (a: UnitRange, b: UnitRange) => insideOneDefinition(members, a, b);
  it('joins two members of one class, whatever lies between them', () => {
    assert.equal(together(hit('a', 'l.ts', 10, 30), hit('b', 'l.ts', 60, 70)), true);
  });
  it('keeps top-level definitions apart: nothing encloses both', () => {
    assert.equal(together(hit('a', 'l.ts', 410, 420), hit('b', 'l.ts', 430, 440)), false);
    assert.equal(together(hit('a', 'l.ts', 10, 30), hit('b', 'l.ts', 410, 420)), false);
  });
  it('a range that is the enclosing definition itself does not count', () => {
    assert.equal(together(hit('a', 'l.ts', 1, 400), hit('b', 'l.ts', 10, 30)), false);
  });
});

describe('capPerFile', () => {
  it('keeps the first n items of each file, in order', () => {
    const items = ['a', 'a', 'b', 'a', 'a', 'c', 'b'].map((path, i) => ({ path, i }));
    assert.deepEqual(
      capPerFile(items, 2).map((x) => x.i),
      [0, 1, 2, 5, 6],
    );
  });
});

describe('toUnits', () => {
  it('widens, merges, caps per file and cuts to the limit', () => {
    const hits = [
      hit('w1', 'p.py', 60, 110, 'Parser.parse'),
      hit('w2', 'p.py', 10, 70, 'Parser.parse'),
      hit('q1', 'q.py', 1, 5),
      hit('q2', 'q.py', 50, 55),
      hit('q3', 'q.py', 100, 105),
      hit('q4', 'q.py', 150, 155),
      hit('r1', 'r.py', 1, 5),
    ];
    const units = toUnits(hits, (p) => (p === 'p.py' ? defs : []), 4);
    assert.deepEqual(
      units.map((h) => [h.id, h.startLine, h.endLine]),
      [
        ['w1', 10, 110],
        ['q1', 1, 5],
        ['q2', 50, 55],
        ['q3', 100, 105],
      ],
    );
    assert.deepEqual(
      toUnits(hits, () => [], 10).map((h) => h.id),
      ['w1', 'q1', 'q2', 'q3', 'r1'],
    );
  });
  it('merges hits inside one definition across a gap, up to the line limit', () => {
    const units = toUnits(
      [
        hit('next', 'l.ts', 10, 30, 'Lexer.next'),
        hit('helper', 'l.ts', 410, 420, 'helper'),
        hit('peek', 'l.ts', 60, 70, 'Lexer.peek'),
        hit('other', 'l.ts', 430, 440, 'other'),
      ],
      () => members,
      10,
    );
    assert.deepEqual(
      units.map((h) => [h.id, h.startLine, h.endLine]),
      [
        ['next', 10, 70],
        ['helper', 410, 420],
        ['other', 430, 440],
      ],
      'two members of Lexer become one unit; top-level functions stay apart',
    );
    const far = toUnits(
      [hit('next', 'l.ts', 10, 30, 'Lexer.next'), hit('far', 'l.ts', 300, 310, 'Lexer.far')],
      () => members,
      10,
    );
    assert.equal(far.length, 2, 'a 301-line union is over the limit');
  });
});

describe('unitPaths', () => {
  it('is the first `limit` distinct files in rank order', () => {
    const hits = [
      hit('a', 'p', 1, 2),
      hit('b', 'q', 1, 2),
      hit('c', 'p', 5, 6),
      hit('d', 'r', 1, 2),
    ];
    assert.deepEqual([...unitPaths(hits, 2)], ['p', 'q']);
    assert.deepEqual([...unitPaths(hits, 10)], ['p', 'q', 'r']);
  });

  it('toUnits gives the same units when only those files have definitions', () => {
    // Random hits over a few files, each file with nested, overlapping and
    // adjacent definitions, so widening and merging both happen often.
    let state = 7;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const defsOf = new Map(
      files.map((f) => [
        f,
        Array.from({ length: 6 }, (_, k): UnitDefinition => {
          const start = 1 + next(200);
          return {
            qualifiedName: `S${k}`,
            kind: 'function',
            startLine: start,
            endLine: start + next(90),
          };
        }),
      ]),
    );
    for (let round = 0; round < 500; round++) {
      const hits = Array.from({ length: 1 + next(40) }, (_, k) => {
        const file = files[next(files.length)]!;
        if (next(4) === 0) {
          const start = 1 + next(220);
          return hit(`h${k}`, file, start, start + next(30));
        }
        // A window of one of the file's definitions, as the chunker cuts them.
        const d = defsOf.get(file)![next(6)]!;
        const start = d.startLine + next(d.endLine - d.startLine + 1);
        const end = start + next(d.endLine - start + 1);
        return hit(`h${k}`, file, start, end, d.qualifiedName);
      });
      const limit = 1 + next(12);
      const all = toUnits(hits, (p) => defsOf.get(p) ?? [], limit);
      const reach = unitPaths(hits, limit);
      const some = toUnits(hits, (p) => (reach.has(p) ? defsOf.get(p)! : []), limit);
      assert.deepEqual(some, all, `round ${round}`);
    }
  });
});
