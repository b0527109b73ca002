import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openLocalEngine } from './engine.js';
import { ownFileOf, ownFrames, pathsByName } from './repo-frames.js';
import { indexTree } from './test-support.js';

describe('frames printed from an installed copy of the repository', () => {
  const byName = pathsByName([
    'sympy/core/basic.py',
    'sympy/core/tests/test_basic.py',
    'sympy/polys/domains/basic.py',
    'clap_builder/src/parser/parser.rs',
    'clap_lex/src/lib.rs',
    'context.go',
    'render/context.go',
    'a/util.js',
    'b/util.js',
  ]);

  it('name the file whose path the frame ends with', () => {
    assert.equal(
      ownFileOf('/usr/lib/python3.11/site-packages/sympy/core/basic.py', byName),
      'sympy/core/basic.py',
    );
    // A crate's versioned directory in the registry is not a directory of the repository.
    assert.equal(
      ownFileOf(
        '/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/clap_builder-4.4.16/src/parser/parser.rs',
        byName,
      ),
      'clap_builder/src/parser/parser.rs',
    );
    assert.equal(
      ownFileOf('C:\\Python311\\Lib\\site-packages\\sympy\\polys\\domains\\basic.py', byName),
      'sympy/polys/domains/basic.py',
    );
  });

  it("a module's root file is the repository's root file, not a deeper one of that name", () => {
    assert.equal(
      ownFileOf('/go/pkg/mod/github.com/gin-gonic/gin@v1.7.0/context.go', byName),
      'context.go',
    );
  });

  it('name nothing when the tail is ambiguous or the repository lacks the file', () => {
    assert.equal(ownFileOf('/app/node_modules/pkg/util.js', byName), null);
    assert.equal(ownFileOf('/usr/lib/python3.11/json/decoder.py', byName), null);
    assert.equal(ownFileOf('', byName), null);
  });

  it('map each printed path to its file, leaving the rest out', () => {
    const own = ownFrames(
      [
        '/usr/lib/python3.11/json/decoder.py',
        '/venv/lib/python3.9/site-packages/sympy/core/basic.py',
      ],
      byName,
    );
    assert.deepEqual(
      [...own],
      [['/venv/lib/python3.9/site-packages/sympy/core/basic.py', 'sympy/core/basic.py']],
    );
  });
});

/** A library whose users report tracebacks through its installed copy. */
const LIBRARY = {
  'geom/core/shapes.py': [
    'def area_of(shape):',
    '    """The area of a shape."""',
    '    return shape.w * shape.h',
    '',
  ].join('\n'),
  'geom/core/checks.py': [
    'def check_area(shape):',
    '    """Computing the area fails when a shape has a negative width."""',
    '    if shape.width < 0:',
    '        raise TypeError("negative width")',
    '',
  ].join('\n'),
  'geom/render.py': 'def draw(shape):\n    return str(shape)\n',
  'geom/api.py': 'def total(shapes):\n    return sum(measure(s) for s in shapes)\n',
};

const REPORT = `Computing an area fails for a shape with a negative width

Traceback (most recent call last):
  File "/home/me/app/main.py", line 3, in <module>
    print(total(shapes))
  File "/home/me/.venv/lib/python3.11/site-packages/geom/core/shapes.py", line 3, in area_of
    return shape.width * shape.height
TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'
`;

describe('a traceback through the installed copy, searched in the repository', () => {
  let made: Awaited<ReturnType<typeof indexTree>>;
  before(async () => {
    made = await indexTree('codesift-own-frames-', LIBRARY);
  });
  after(() => rmSync(made.dir, { recursive: true, force: true }));

  it("names only the innermost frame's file, not its callers'", async () => {
    const throughApi = REPORT.replace(
      '  File "/home/me/.venv',
      '  File "/home/me/.venv/lib/python3.11/site-packages/geom/api.py", line 2, in total\n    return sum(area_of(s) for s in shapes)\n  File "/home/me/.venv',
    );
    const engine = await openLocalEngine({ indexPath: made.indexPath, embedder: null });
    try {
      const res = await engine.search({
        query: throughApi,
        keywordOnly: true,
        collapseFiles: true,
      });
      const said = res.plan!.reasons.filter((r) => r.includes('installed copy'));
      assert.equal(said.length, 1, res.plan!.reasons.join('\n'));
      assert.match(said[0]!, /own file geom\/core\/shapes\.py: read as its code$/);
    } finally {
      await engine.close();
    }
  });

  it("ranks the frame's own file first, and the plan says why", async () => {
    const engine = await openLocalEngine({ indexPath: made.indexPath, embedder: null });
    try {
      const res = await engine.search({ query: REPORT, keywordOnly: true, collapseFiles: true });
      assert.ok(
        res.plan!.reasons.some((r) =>
          /installed copy name the repository's own file geom\/core\/shapes\.py/.test(r),
        ),
        res.plan!.reasons.join('\n'),
      );
      assert.equal(res.results[0]!.path, 'geom/core/shapes.py');
    } finally {
      await engine.close();
    }
  });
});
