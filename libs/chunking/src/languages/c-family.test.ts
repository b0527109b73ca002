import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { type Chunker, createChunker } from '../chunker.js';
import { assertWellFormed, symbolFor } from '../testing/chunk-assertions.js';
import { chunkOutline, symbolOutline } from '../testing/outline.js';

let chunker: Chunker;
before(async () => {
  // minChunkLines 1: every definition keeps its own chunk, however small.
  chunker = await createChunker({ minChunkLines: 1 });
});

const C = `#include <stdio.h>

/* A point in the plane. */
struct point {
  int x;
  int y;
};

typedef struct { int w; } size2;

enum color { RED, GREEN };

// Adds two points.
static struct point point_add(struct point a, struct point b) {
  struct point r = { a.x + b.x, a.y + b.y };
  return r;
}

int *find_max(int *xs, int n);

#define SQUARE(x) ((x) * (x))
`;

test('c: functions, prototypes, structs, typedefs and macros', () => {
  const r = chunker.chunkFile({ path: 'src/point.c', language: 'c', text: C });
  assertWellFormed(r, C);
  assert.deepEqual(symbolOutline(r), [
    'struct:point',
    'type:size2',
    'enum:color',
    'function:point_add',
    'function:find_max',
    'function:SQUARE',
  ]);
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-7 struct:point',
    '9-9 type:size2',
    '11-11 enum:color',
    '13-17 function:point_add',
    '19-19 function:find_max',
    '21-21 function:SQUARE',
  ]);
  const add = symbolFor(r, 'point_add');
  assert.equal(add.signature, 'static struct point point_add(struct point a, struct point b)');
  assert.equal(add.doc, 'Adds two points.');
  assert.equal(add.startLine, 14);
  assert.equal(add.endLine, 17);
  assert.equal(symbolFor(r, 'point').doc, 'A point in the plane.');
  assert.equal(symbolFor(r, 'find_max').signature, 'int *find_max(int *xs, int n);');
  for (const c of r.chunks) assert.equal(c.language, 'c');
});

const CPP = `#include <vector>

namespace geo {

/// A shape with an area.
class Shape {
 public:
  virtual ~Shape() = default;
  /// Area in square units.
  virtual double area() const = 0;
  double scaled(double k) const { return area() * k; }
};

struct Circle : public Shape {
  double r;
  double area() const override { return 3.14 * r * r; }
};

// Sums the areas.
template <typename T>
double total_area(const std::vector<T>& shapes) {
  double sum = 0;
  for (const auto& s : shapes) sum += s.area();
  return sum;
}

double Circle::perimeter() const {
  return 2 * 3.14 * r;
}

}  // namespace geo
`;

test('cpp: namespaces spread, classes, templates and out-of-line methods', () => {
  const r = chunker.chunkFile({ path: 'src/shape.cc', language: 'cpp', text: CPP });
  assertWellFormed(r, CPP);
  assert.deepEqual(symbolOutline(r), [
    'module:geo',
    'class:geo.Shape',
    'method:geo.Shape.~Shape',
    'method:geo.Shape.area',
    'method:geo.Shape.scaled',
    'struct:geo.Circle',
    'method:geo.Circle.area',
    'function:geo.total_area',
    'method:geo.Circle.perimeter',
  ]);
  // The namespace wraps the file, so its members are chunks of their own.
  assert.deepEqual(chunkOutline(r), [
    '1-1 block:null',
    '3-3 module:geo',
    '5-12 class:geo.Shape',
    '14-17 struct:geo.Circle',
    '19-25 function:geo.total_area',
    '27-29 method:geo.Circle.perimeter',
    '31-31 module:geo',
  ]);
  assert.equal(symbolFor(r, 'geo.Shape').doc, 'A shape with an area.');
  assert.equal(symbolFor(r, 'geo.Shape.area').doc, 'Area in square units.');
  assert.equal(symbolFor(r, 'geo.Shape.area').signature, 'virtual double area() const = 0;');
  const perimeter = symbolFor(r, 'geo.Circle.perimeter');
  assert.equal(perimeter.name, 'perimeter');
  assert.equal(perimeter.parent, 'geo.Circle');
  assert.equal(perimeter.signature, 'double Circle::perimeter() const');
  const total = symbolFor(r, 'geo.total_area');
  assert.equal(total.signature, 'double total_area(const std::vector<T>& shapes)');
  assert.equal(total.doc, 'Sums the areas.');
  assert.equal(total.startLine, 20);
});

test('a .h header is C unless its text is C++', () => {
  const c = chunker.chunkFile({
    path: 'include/list.h',
    language: 'c',
    text: 'int list_len(void);\n',
  });
  assert.equal(c.chunks[0]?.language, 'c');
  assert.deepEqual(symbolOutline(c), ['function:list_len']);

  const header = 'namespace geo {\nclass Shape {\n public:\n  double area() const;\n};\n}\n';
  const cpp = chunker.chunkFile({ path: 'include/shape.h', language: 'c', text: header });
  assertWellFormed(cpp, header);
  assert.ok(cpp.chunks.every((ch) => ch.language === 'cpp'));
  assert.ok(cpp.symbols.every((s) => s.language === 'cpp'));
  assert.deepEqual(symbolOutline(cpp), ['module:geo', 'class:geo.Shape', 'method:geo.Shape.area']);
  // Only `.h` is ambiguous: a `.c` file stays C whatever it contains.
  const odd = chunker.chunkFile({ path: 'src/odd.c', language: 'c', text: header });
  assert.ok(odd.chunks.every((ch) => ch.language === 'c'));
});

// Shaped like portable C libraries: export macros the parser cannot know in
// declarations, and a conditional that splits an `if (` between branches.
const MACRO_C = `#define local static

int EXPORT first(stream s, int flush) {
    for (;;)
        switch (s->mode) {
        case HEAD:
#ifdef WITH_HEADER
            if (!(s->wrap & 1) ||
#else
            if (
#endif
                check(s) % 31) {
                s->mode = BAD;
                break;
            }
#ifdef WITH_HEADER
            s->flags = 0;
#endif
            break;
        case CHECK:
            if ((s->wrap & 4) && (
#ifdef WITH_HEADER
                s->flags ? s->hold :
#endif
                swap(s->hold)) != s->check) {
                s->mode = BAD;
                break;
            }
        default:
            return -1;
        }
}

local int second(stream FAR *s) {
    return s->n;
}
`;

test('c: unknown export macros and a statement split by #ifdef do not swallow the functions after them', () => {
  const r = chunker.chunkFile({ path: 'src/stream.c', language: 'c', text: MACRO_C });
  assertWellFormed(r, MACRO_C);
  assert.deepEqual(
    r.symbols
      .filter((s) => s.kind === 'function')
      .map((s) => `${s.qualifiedName} ${s.startLine}-${s.endLine}`),
    ['first 3-32', 'second 34-36'],
  );
  // Signatures come from the original text, macros included.
  assert.equal(symbolFor(r, 'second').signature, 'local int second(stream FAR *s)');
});
