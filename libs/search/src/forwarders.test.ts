import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openLocalEngine } from './engine.js';
import {
  bodyLines,
  callsOwnName,
  FORWARDER_MAX_LINES,
  mayForward,
  yieldingChunks,
} from './forwarders.js';
import { indexTree } from './test-support.js';
import type { SearchEngine } from './types.js';

describe('callsOwnName', () => {
  const core = ['pkg/core/tables.py'];
  it('takes a bare call or instantiation of the name: an imported function, the class', () => {
    assert.equal(callsOwnName('render_table', '    return render_table(rows)', core), true);
    assert.equal(callsOwnName('Codec', '  return new Codec(a, b)', core), true);
    assert.equal(callsOwnName('Box', '  return Box<T>(x)', core), true);
  });
  it('takes a call qualified by a part of the longer namesake’s path', () => {
    assert.equal(callsOwnName('render_table', '    return tables.render_table(r)', core), true);
    assert.equal(callsOwnName('encode', '  core::encode (x)', ['src/core/mod.rs']), true);
    assert.equal(callsOwnName('Api.encode', '  return _core.encode(x)', ['src/core.ts']), true);
  });
  it('does not take a call on some value: another type’s method of that name', () => {
    assert.equal(callsOwnName('hashCode', '  return value.hashCode();', ['a/Json.java']), false);
    assert.equal(callsOwnName('toString', '  return snapshot().toString();', core), false);
    assert.equal(callsOwnName('encode', '  return self._impl.encode(x)', core), false);
  });
  it('does not take a longer word, a mention or another name for a call', () => {
    assert.equal(callsOwnName('encode', '  return encoder(x)', core), false);
    assert.equal(callsOwnName('encode', '  return my_encode(x)', core), false);
    assert.equal(callsOwnName('encode', '  # encode is slow\n  return x', core), false);
    assert.equal(callsOwnName('hashCode', '  return 31 * id;', core), false);
  });
});

describe('bodyLines', () => {
  it('takes the definition’s lines after its declaration from a chunk that starts earlier', () => {
    const chunk = { startLine: 10, content: 'a\nb\ndef f():\n  return g.f()\nafter' };
    assert.equal(bodyLines({ name: 'f', startLine: 12, endLine: 13 }, chunk), '  return g.f()');
  });
  it('skips a decorator above the declaration', () => {
    const chunk = { startLine: 1, content: '@overload\ndef polyval(x: int) -> int:\n    ...' };
    assert.equal(bodyLines({ name: 'polyval', startLine: 1, endLine: 3 }, chunk), '    ...');
  });
});

describe('mayForward', () => {
  const def = (name: string, path: string, startLine: number, endLine: number) => ({
    name,
    path,
    startLine,
    endLine,
  });
  it('keeps a short definition with a longer namesake in another file', () => {
    const wrapper = def('encode', 'api/codec.ts', 1, 3);
    const impl = def('encode', 'core/codec.ts', 10, 60);
    assert.deepEqual(mayForward([wrapper, impl]), [wrapper]);
  });
  it('keeps none when the namesakes are as short, in the same file or the name is alone', () => {
    assert.deepEqual(mayForward([def('a', 'x.ts', 1, 3), def('a', 'y.ts', 1, 3)]), []);
    assert.deepEqual(mayForward([def('a', 'x.ts', 1, 3), def('a', 'x.ts', 10, 60)]), []);
    assert.deepEqual(mayForward([def('a', 'x.ts', 1, 3)]), []);
    assert.deepEqual(mayForward([def('a', 'x.ts', 1, 3), def('b', 'y.ts', 1, 60)]), []);
  });
  it('keeps none longer than FORWARDER_MAX_LINES', () => {
    const long = def('a', 'x.ts', 1, FORWARDER_MAX_LINES + 1);
    assert.deepEqual(mayForward([long, def('a', 'y.ts', 1, 100)]), []);
  });
});

describe('yieldingChunks', () => {
  const wrapper = { name: 'encode', path: 'api.ts', startLine: 2, endLine: 4 };
  const impl = { name: 'encode', path: 'core.ts', startLine: 1, endLine: 40 };
  const chunk = (id: string, path: string, startLine: number, content: string) => ({
    id,
    path,
    startLine,
    endLine: startLine + content.split('\n').length - 1,
    content,
  });
  const forwarding = chunk(
    'w',
    'api.ts',
    1,
    '// api\nfunction encode(x) {\n  return core.encode(x);\n}',
  );
  it('takes the credit from a chunk whose only definition forwards', () => {
    assert.deepEqual([...yieldingChunks([wrapper, impl], [forwarding]).keys()], ['w']);
  });
  it('leaves a decorated stub: its declaration is not a call', () => {
    const stub = chunk('w', 'api.ts', 1, '@overload\nfunction encode(x: number): number;\n');
    const decorated = { ...wrapper, startLine: 1, endLine: 2 };
    assert.deepEqual([...yieldingChunks([decorated, impl], [stub]).keys()], []);
  });
  it('leaves a short definition that does its own work', () => {
    const own = chunk('w', 'api.ts', 1, '// api\nfunction encode(x) {\n  return x * 2;\n}');
    assert.deepEqual([...yieldingChunks([wrapper, impl], [own]).keys()], []);
  });
  it('leaves a chunk that also holds a definition that does not yield', () => {
    const other = { name: 'decode', path: 'api.ts', startLine: 1, endLine: 1 };
    assert.deepEqual([...yieldingChunks([wrapper, impl, other], [forwarding]).keys()], []);
  });
});

// A core implementation and a thin API layer over it, both defining `render_table`;
// the layer's docstring carries the report's words, so BM25 alone prefers it.
const TREE: Record<string, string> = {
  'pkg/core/tables.py': `import textwrap


def render_table(rows, widths):
    # The rows may be empty.
    out = []
    for row in rows:
        cells = []
        for cell, width in zip(row, widths):
            text = str(cell)
            if len(text) > width:
                text = text[: width - 1] + "~"
            cells.append(text.ljust(width))
        out.append(" | ".join(cells))
    if not out:
        return ""
    return textwrap.dedent("\\n".join(out))
`,
  'pkg/api/tables.py': `from pkg.core import tables


def render_table(rows, widths):
    """Render rows as a table. Empty rows render an empty table; widths pad cells."""
    return tables.render_table(rows, widths)
`,
  'pkg/core/rows.py': `def count_rows(table):
    return len(table.rows)
`,
};

describe('forwarders (engine, keyword only)', () => {
  let dir: string;
  let engine: SearchEngine;
  before(async () => {
    const built = await indexTree('codesift-forwarders-', TREE);
    dir = built.dir;
    engine = await openLocalEngine({ indexPath: built.indexPath });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const query = 'render_table gives a wrong table for empty rows';
  it('ranks the implementation over the wrapper forwarding to it', async () => {
    const res = await engine.search({ query, limit: 2, collapseFiles: true });
    assert.deepEqual(
      res.results.map((r) => r.path),
      ['pkg/core/tables.py', 'pkg/api/tables.py'],
    );
    assert.ok(
      res.plan!.reasons.includes(
        'definitions: render_table at pkg/api/tables.py:4 forwards to a longer render_table elsewhere, which keeps the boost',
      ),
    );
  });
  it('with the switch off, the wrapper keeps its definition credit and wins', async () => {
    const res = await engine.search({ query, limit: 2, collapseFiles: true, forwarders: false });
    assert.equal(res.results[0]?.path, 'pkg/api/tables.py');
    assert.ok(!res.plan!.reasons.some((r) => r.includes('forwards to')));
  });
});
