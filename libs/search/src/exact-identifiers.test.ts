import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openLocalEngine } from './engine.js';
import { indexTree } from './test-support.js';
import type { SearchEngine } from './types.js';

const callers = (pkg: string, n: number) =>
  Array.from({ length: n }, (_, i) => `\t_ = ${pkg}WithTimeout(${i})`).join('\n');

// Several definitions of one name, and call sites that outnumber a definition.
const TREE: Record<string, string> = {
  'server/options.go': `package server

// Options are the settings.
type Options struct {
\tPort int
}

// Option changes Options.
type Option func(*Options)

// WithTimeout sets how long a request may take.
func WithTimeout(seconds int) Option {
\treturn func(o *Options) { o.Port = seconds }
}
`,
  'client/options.go': `package client

// Options are the settings.
type Options struct {
\tRetries int
}
`,
  'cmd/command.go': `package cmd

// Command is one command of the program.
type Command struct {
\tUse string
}
`,
  'legacy/old.go': `package legacy

// Command is the old command type.
type Command struct {
\tName string
}
`,
  'app/main.go': `package main

func main() {
${callers('server.', 12)}
}
`,
  'app/more.go': `package main

func more() {
${callers('server.', 12)}
}
`,
  'py/reader.py': `class Reader:
    """Reads records."""

    def read(self):
        return []
`,
  'py/use.py': `from reader import Reader

def use():
    a = Reader()
    b = Reader()
    c = Reader()
    return [Reader(), Reader(), a, b, c]
`,
};

describe('exact identifiers at rank 1 (engine, keyword only)', () => {
  let dir: string;
  let engine: SearchEngine;
  before(async () => {
    const made = await indexTree('codesift-exact-', TREE);
    dir = made.dir;
    const indexPath = made.indexPath;
    engine = await openLocalEngine({ indexPath, embedder: null });
  });
  after(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const top = async (query: string) => {
    const res = await engine.search({ query, keywordOnly: true, limit: 5 });
    return res.results[0]!;
  };

  it('a query naming a file and a symbol ranks that file’s definition first', async () => {
    const r = await top('command.go Command');
    assert.equal(r.path, 'cmd/command.go');
    assert.equal(r.symbol, 'Command');
  });

  it('`type X struct` resolves to a definition, ties broken by path evidence', async () => {
    assert.equal((await top('type Options struct of the client')).path, 'client/options.go');
    assert.equal((await top('server type Options struct')).path, 'server/options.go');
  });

  it('`class X` resolves to the class, not its many uses', async () => {
    const r = await top('class Reader');
    assert.equal(r.path, 'py/reader.py');
  });

  it('an option function’s definition outranks its call sites, written as the caller writes it', async () => {
    for (const q of ['WithTimeout', 'server.WithTimeout']) {
      const r = await top(q);
      assert.equal(r.path, 'server/options.go', q);
    }
  });
});

describe("a title's code span names the definition", () => {
  it('`polyval` in backticks ranks its definition above files that repeat the word', async () => {
    const uses = (n: number) =>
      Array.from(
        { length: n },
        (_, i) => `    y${i} = polyval(coeffs, x${i})  # results of polyval on the coordinates`,
      ).join('\n');
    const made = await indexTree('codesift-code-span-', {
      'core/computation.py':
        'def polyval(coord, coeffs, degree_dim="degree"):\n    """Evaluate a polynomial at the coordinates."""\n    return sum(c * coord**i for i, c in enumerate(coeffs))\n',
      'core/report.py': 'def report(results):\n    return [str(r) for r in results]\n',
      'bench/fit.py': `def bench(coeffs, xs):\n${uses(6)}\n    return y0\n`,
      'core/dataarray.py': `def fit(self, coeffs):\n${uses(4)}\n    return y0\n`,
    });
    const engine = await openLocalEngine({ indexPath: made.indexPath, embedder: null });
    try {
      const query = '`polyval` with timedelta64 coordinates produces wrong results';
      const first = async (codeSpans: boolean) => {
        const res = await engine.search({
          query,
          keywordOnly: true,
          collapseFiles: true,
          codeSpans,
        });
        return res.results[0]?.path;
      };
      assert.equal(await first(true), 'core/computation.py');
      // Without the span read as code, the files repeating the word come first.
      assert.notEqual(await first(false), 'core/computation.py');
    } finally {
      await engine.close();
      rmSync(made.dir, { recursive: true, force: true });
    }
  });
});

describe('a qualified name in a long report still finds its definition', () => {
  it('`Rack::Reader`-style names are looked up as `Rack.Reader` whatever the query length', async () => {
    const made = await indexTree('codesift-exact-long-', {
      'lib/reader.rb': 'module Rack\n  class Reader\n    def read\n      []\n    end\n  end\nend\n',
      'lib/use.rb': 'Rack::Reader.new\nRack::Reader.new\nRack::Reader.new\n',
    });
    const engine = await openLocalEngine({ indexPath: made.indexPath, embedder: null });
    try {
      const query = `Rack::Reader reads the input. ${'The body explains the change at length. '.repeat(6)}`;
      const res = await engine.search({ query, keywordOnly: true, explain: true });
      const def = res.results.find((r) => r.path === 'lib/reader.rb');
      assert.ok(
        def?.explain?.boost !== undefined && def.explain.boost > 0,
        JSON.stringify(res.results),
      );
    } finally {
      await engine.close();
      rmSync(made.dir, { recursive: true, force: true });
    }
  });
});

describe('a definition outranks its prototype', () => {
  it('a C function is found in its source file, not at the header prototype its long doc comment repeats', async () => {
    const doc = Array.from(
      { length: 8 },
      (_, i) => `   stream_bound() returns bound ${i}; call stream_bound() before writing.`,
    ).join('\n');
    const made = await indexTree('codesift-exact-proto-', {
      'stream.h': `#ifndef STREAM_H\n#define STREAM_H\n\nint stream_bound(int len);\n/*\n${doc}\n*/\n\n#endif\n`,
      'stream.c': `#include "stream.h"\n\nint stream_bound(int len) {\n    int extra = len >> 12;\n    return len + extra + 13;\n}\n`,
    });
    const engine = await openLocalEngine({ indexPath: made.indexPath, embedder: null });
    try {
      const res = await engine.search({ query: 'stream_bound', keywordOnly: true, limit: 5 });
      assert.equal(
        res.results[0]?.path,
        'stream.c',
        JSON.stringify(res.results.map((r) => r.path)),
      );
    } finally {
      await engine.close();
      rmSync(made.dir, { recursive: true, force: true });
    }
  });
});

describe('a trace that failed outside the repository', () => {
  it('a consumer script’s failing function, undefined here, leaves the full boost to the library frames', async () => {
    const uses = Array.from(
      { length: 6 },
      (_, i) => `    part${i} = reader.iter_chunks(${i})`,
    ).join('\n');
    const made = await indexTree('codesift-trace-consumer-', {
      'shop/models.py': `class Response:\n    def iter_chunks(self, size):\n        while True:\n            yield self.raw.read(size)\n`,
      'shop/stream.py': `def copy_all(reader):\n${uses}\n    return [part0, part1]\n`,
    });
    const engine = await openLocalEngine({ indexPath: made.indexPath, embedder: null });
    try {
      const trace =
        'Traceback (most recent call last):\n  File "tool.py", line 3, in dir_parse\n  File "/x/site-packages/shop/models.py", line 4, in iter_chunks\n    yield self.raw.read(size)\nOSError: reset';
      const res = await engine.search({ query: trace, keywordOnly: true, explain: true, limit: 5 });
      assert.equal(res.plan?.definitions.failingFunction, 'dir_parse');
      const def = res.results.find((r) => r.path === 'shop/models.py');
      assert.equal(
        def?.explain?.boost !== undefined && def.explain.boost >= 1,
        true,
        JSON.stringify(res.results.map((r) => [r.path, r.explain])),
      );
    } finally {
      await engine.close();
      rmSync(made.dir, { recursive: true, force: true });
    }
  });
});
