import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type Chunker, createChunker } from './chunker.js';
import { assertWellFormed, chunkFor, lineOf, symbolFor } from './testing/chunk-assertions.js';

let chunker: Chunker;
before(async () => {
  chunker = await createChunker();
});

const TS = `import { EventEmitter } from 'node:events';
import type { Edge } from './edge.js';

export const DEFAULT_WEIGHT = 1;

/**
 * A directed graph of string nodes.
 * Emits 'change' after every mutation.
 */
export class Graph extends EventEmitter {
  private readonly edges = new Map<string, Set<string>>();

  /** Adds an edge from \`a\` to \`b\`. */
  addEdge(a: string, b: string, weight = DEFAULT_WEIGHT): void {
    const out = this.edges.get(a) ?? new Set<string>();
    out.add(b);
    this.edges.set(a, out);
    this.emit('change', { a, b, weight });
  }

  // Nodes reachable in one step.
  neighbours(a: string): string[] {
    return [...(this.edges.get(a) ?? [])];
  }

  private onChange = (edge: Edge): void => {
    console.log(edge);
  };
}

export interface Visitor {
  visit(node: string): boolean;
  readonly name: string;
}

export type NodeId = string | number;

export enum Color {
  Red,
  Green,
}

/** Breadth-first path search. */
export const shortestPath = async (g: Graph, from: string, to: string): Promise<string[]> => {
  function step(node: string): string[] {
    return g.neighbours(node);
  }
  const seen = new Set<string>([from]);
  const queue = [[from]];
  while (queue.length > 0) {
    const path = queue.shift()!;
    for (const next of step(path[path.length - 1]!)) {
      if (next === to) return [...path, next];
      if (!seen.has(next)) {
        seen.add(next);
        queue.push([...path, next]);
      }
    }
  }
  return [];
};
`;

describe('typescript', () => {
  test('chunks a class, free functions and top-level code', () => {
    const r = chunker.chunkFile({ path: 'src/graph.ts', language: 'typescript', text: TS });
    assertWellFormed(r, TS);

    const graph = chunkFor(r, 'Graph');
    assert.equal(graph.kind, 'class');
    assert.equal(graph.startLine, lineOf(TS, '/**'));
    assert.equal(graph.endLine, lineOf(TS, '};', lineOf(TS, 'onChange')) + 1);
    assert.equal(graph.signature, 'export class Graph extends EventEmitter');
    assert.equal(
      graph.doc,
      "A directed graph of string nodes.\nEmits 'change' after every mutation.",
    );
    assert.equal(graph.language, 'typescript');
    assert.equal(graph.path, 'src/graph.ts');

    const imports = r.chunks[0]!;
    assert.equal(imports.kind, 'block');
    assert.equal(imports.symbol, null);
    assert.equal(imports.startLine, 1);
    assert.equal(imports.endLine, lineOf(TS, 'DEFAULT_WEIGHT = 1'));

    const path = chunkFor(r, 'shortestPath');
    assert.equal(path.kind, 'function');
    assert.equal(
      path.signature,
      'export const shortestPath = async (g: Graph, from: string, to: string): Promise<string[]> =>',
    );
    assert.equal(path.doc, 'Breadth-first path search.');
    assert.equal(path.startLine, lineOf(TS, 'Breadth-first'));
    assert.equal(path.endLine, TS.split('\n').length - 1);
  });

  test('extracts every symbol with parents, signatures and docs', () => {
    const r = chunker.chunkFile({ path: 'src/graph.ts', language: 'typescript', text: TS });
    const names = r.symbols.map((s) => `${s.kind}:${s.qualifiedName}`);
    assert.deepEqual(names, [
      'class:Graph',
      'method:Graph.addEdge',
      'method:Graph.neighbours',
      'method:Graph.onChange',
      'interface:Visitor',
      'method:Visitor.visit',
      'type:NodeId',
      'enum:Color',
      'function:shortestPath',
      'function:shortestPath.step',
    ]);
    const add = symbolFor(r, 'Graph.addEdge');
    assert.equal(add.name, 'addEdge');
    assert.equal(add.parent, 'Graph');
    assert.equal(add.doc, 'Adds an edge from `a` to `b`.');
    assert.equal(add.signature, 'addEdge(a: string, b: string, weight = DEFAULT_WEIGHT): void');
    assert.equal(add.startLine, lineOf(TS, 'addEdge(a: string'));
    assert.equal(add.endLine, lineOf(TS, "this.emit('change'") + 1);
    assert.equal(symbolFor(r, 'Graph.neighbours').doc, 'Nodes reachable in one step.');
    assert.equal(symbolFor(r, 'Graph').startLine, lineOf(TS, 'export class Graph'));
    assert.equal(symbolFor(r, 'Graph').parent, null);
    const step = symbolFor(r, 'shortestPath.step');
    assert.equal(step.parent, 'shortestPath');
    assert.equal(step.kind, 'function');
    assert.equal(symbolFor(r, 'NodeId').signature, 'export type NodeId = string | number');
    assert.equal(symbolFor(r, 'Visitor.visit').signature, 'visit(node: string): boolean');
    for (const s of r.symbols) {
      assert.equal(s.path, 'src/graph.ts');
      assert.match(s.id, /^[0-9a-f]{32}$/);
    }
    assert.equal(new Set(r.symbols.map((s) => s.id)).size, r.symbols.length);
  });

  test('a class over the limits becomes a chunk per method plus its header', async () => {
    const small = await createChunker({ maxChunkLines: 12, minChunkLines: 1 });
    const r = small.chunkFile({ path: 'src/graph.ts', language: 'typescript', text: TS });
    assertWellFormed(r, TS);
    const classChunks = r.chunks.filter((c) => c.symbol?.startsWith('Graph'));
    assert.deepEqual(
      classChunks.map((c) => `${c.kind}:${c.symbol}`),
      ['class:Graph', 'method:Graph.addEdge', 'method:Graph.neighbours', 'method:Graph.onChange'],
    );
    const header = classChunks[0]!;
    assert.equal(header.startLine, lineOf(TS, '/**'));
    assert.equal(header.endLine, lineOf(TS, 'private readonly edges'));
    assert.equal(header.signature, 'export class Graph extends EventEmitter');
    assert.ok(header.doc?.startsWith('A directed graph'));
    const add = classChunks[1]!;
    assert.equal(add.startLine, lineOf(TS, '/** Adds an edge'));
    assert.equal(add.signature, 'addEdge(a: string, b: string, weight = DEFAULT_WEIGHT): void');
    // The class's closing brace is folded into the last member rather than left alone.
    const last = classChunks[3]!;
    assert.equal(last.endLine, lineOf(TS, '};', lineOf(TS, 'onChange')) + 1);
    // shortestPath (19 lines) exceeds 12 lines: split into overlapping windows.
    const windows = r.chunks.filter((c) => c.symbol === 'shortestPath');
    assert.ok(windows.length >= 2);
    for (const w of windows) {
      assert.equal(w.kind, 'function');
      assert.ok(w.signature?.startsWith('export const shortestPath'));
    }
  });
});

const TSX = `import React from 'react';

type Props = { label: string };

/** A clickable button. */
export function Button({ label }: Props) {
  return <button type="button">{label}</button>;
}

export const Panel = () => (
  <div className="panel">
    <Button label="ok" />
  </div>
);
`;

test('tsx: components are functions', () => {
  const r = chunker.chunkFile({ path: 'ui/button.tsx', language: 'tsx', text: TSX });
  assertWellFormed(r, TSX);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName}`),
    ['type:Props', 'function:Button', 'function:Panel'],
  );
  assert.equal(symbolFor(r, 'Button').doc, 'A clickable button.');
  assert.equal(symbolFor(r, 'Button').signature, 'export function Button({ label }: Props)');
  assert.equal(symbolFor(r, 'Panel').signature, 'export const Panel = () =>');
});

const JS = `'use strict';

const fs = require('node:fs');

/**
 * Reads a JSON file.
 * @param {string} file
 */
function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

class Cache {
  constructor() {
    this.map = new Map();
  }

  get(key) {
    return this.map.get(key);
  }

  set(key, value) {
    this.map.set(key, value);
    return this;
  }

  clear = () => {
    this.map.clear();
  };
}

const sum = (a, b) => a + b;

module.exports = { readJson, Cache, sum };
`;

test('javascript: functions, classes, class fields and arrow consts', () => {
  const r = chunker.chunkFile({ path: 'lib/cache.js', language: 'javascript', text: JS });
  assertWellFormed(r, JS);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName}`),
    [
      'function:readJson',
      'class:Cache',
      'method:Cache.constructor',
      'method:Cache.get',
      'method:Cache.set',
      'method:Cache.clear',
      'function:sum',
    ],
  );
  const read = chunkFor(r, 'readJson');
  assert.equal(read.kind, 'function');
  assert.equal(read.doc, 'Reads a JSON file.\n@param {string} file');
  assert.equal(read.signature, 'function readJson(file)');
  assert.equal(read.startLine, lineOf(JS, '/**'));
  const cache = chunkFor(r, 'Cache');
  assert.equal(cache.startLine, lineOf(JS, 'class Cache'));
  assert.equal(cache.endLine, lineOf(JS, 'const sum') - 2);
  assert.equal(symbolFor(r, 'Cache.clear').signature, 'clear = () =>');
  assert.equal(symbolFor(r, 'sum').signature, 'const sum = (a, b) =>');
});

const PY = `"""Graph utilities."""

import dataclasses
from typing import Iterator

MAX_DEPTH = 32


@dataclasses.dataclass
class Graph:
    """A directed graph.

    Nodes are strings.
    """

    edges: dict

    def add_edge(self, a: str, b: str) -> None:
        """Adds an edge from a to b."""
        self.edges.setdefault(a, set()).add(b)

    @staticmethod
    def empty() -> "Graph":
        return Graph(edges={})

    async def walk(self, start: str) -> Iterator[str]:
        def visit(node):
            yield node
            for nxt in self.edges.get(node, ()):
                yield from visit(nxt)

        return visit(start)


# Builds a graph from pairs.
def from_pairs(pairs):
    g = Graph.empty()
    for a, b in pairs:
        g.add_edge(a, b)
    return g


if __name__ == "__main__":
    print(from_pairs([("a", "b")]))
`;

test('python: classes, decorated methods, docstrings and nested functions', () => {
  const r = chunker.chunkFile({ path: 'graph.py', language: 'python', text: PY });
  assertWellFormed(r, PY);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName}:${s.parent}`),
    [
      'class:Graph:null',
      'method:Graph.add_edge:Graph',
      'method:Graph.empty:Graph',
      'method:Graph.walk:Graph',
      'function:Graph.walk.visit:Graph.walk',
      'function:from_pairs:null',
    ],
  );
  const graph = chunkFor(r, 'Graph');
  assert.equal(graph.kind, 'class');
  assert.equal(graph.startLine, lineOf(PY, '@dataclasses.dataclass'));
  assert.equal(graph.endLine, lineOf(PY, 'return visit(start)'));
  assert.equal(graph.signature, 'class Graph');
  assert.equal(graph.doc, 'A directed graph.\n\nNodes are strings.');

  const add = symbolFor(r, 'Graph.add_edge');
  assert.equal(add.signature, 'def add_edge(self, a: str, b: str) -> None');
  assert.equal(add.doc, 'Adds an edge from a to b.');
  const empty = symbolFor(r, 'Graph.empty');
  assert.equal(empty.startLine, lineOf(PY, '@staticmethod'));
  assert.equal(empty.signature, 'def empty() -> "Graph"');
  assert.equal(
    symbolFor(r, 'Graph.walk').signature,
    'async def walk(self, start: str) -> Iterator[str]',
  );

  const fromPairs = chunkFor(r, 'from_pairs');
  assert.equal(fromPairs.kind, 'function');
  assert.equal(fromPairs.doc, 'Builds a graph from pairs.');
  assert.equal(fromPairs.startLine, lineOf(PY, '# Builds a graph'));

  const head = r.chunks[0]!;
  assert.equal(head.kind, 'block');
  assert.equal(head.startLine, 1);
  assert.equal(head.endLine, lineOf(PY, 'MAX_DEPTH'));
  const tail = r.chunks[r.chunks.length - 1]!;
  assert.equal(tail.kind, 'block');
  assert.equal(tail.endLine, lineOf(PY, 'print(from_pairs'));
});

const GO = `package graph

import (
	"errors"
	"fmt"
)

// ErrMissing is returned for unknown nodes.
var ErrMissing = errors.New("missing node")

// Graph is a directed graph.
// It is not safe for concurrent use.
type Graph struct {
	edges map[string][]string
}

// Walker visits nodes.
type Walker interface {
	Visit(node string) error
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{edges: map[string][]string{}}
}

// AddEdge adds an edge from a to b.
func (g *Graph) AddEdge(a, b string) error {
	if a == "" {
		return ErrMissing
	}
	g.edges[a] = append(g.edges[a], b)
	return nil
}

func (g Graph) String() string {
	return fmt.Sprint(g.edges)
}
`;

test('go: receivers make methods of their type', () => {
  const r = chunker.chunkFile({ path: 'graph/graph.go', language: 'go', text: GO });
  assertWellFormed(r, GO);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName}:${s.parent}`),
    [
      'struct:Graph:null',
      'interface:Walker:null',
      'method:Walker.Visit:Walker',
      'function:New:null',
      'method:Graph.AddEdge:Graph',
      'method:Graph.String:Graph',
    ],
  );
  const add = chunkFor(r, 'Graph.AddEdge');
  assert.equal(add.kind, 'method');
  assert.equal(add.signature, 'func (g *Graph) AddEdge(a, b string) error');
  assert.equal(add.doc, 'AddEdge adds an edge from a to b.');
  assert.equal(add.startLine, lineOf(GO, '// AddEdge'));
  assert.equal(add.endLine, lineOf(GO, 'return nil') + 1);
  const graph = symbolFor(r, 'Graph');
  assert.equal(graph.signature, 'type Graph struct');
  assert.equal(graph.doc, 'Graph is a directed graph.\nIt is not safe for concurrent use.');
  assert.equal(graph.startLine, lineOf(GO, 'type Graph struct'));
  assert.equal(symbolFor(r, 'Graph.String').signature, 'func (g Graph) String() string');
  assert.equal(r.chunks[0]!.kind, 'block');
  assert.equal(r.chunks[0]!.startLine, 1);
});

const RUST = `use std::collections::HashMap;
use std::fmt;

/// A directed graph.
///
/// Nodes are interned strings.
#[derive(Debug, Default)]
pub struct Graph {
    edges: HashMap<String, Vec<String>>,
}

impl Graph {
    /// Creates an empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an edge from \`a\` to \`b\`.
    pub fn add_edge(&mut self, a: &str, b: &str) {
        self.edges.entry(a.to_string()).or_default().push(b.to_string());
    }
}

/// Something that can be walked.
pub trait Walk {
    fn walk(&self, start: &str) -> Vec<String>;

    fn count(&self, start: &str) -> usize {
        self.walk(start).len()
    }
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} nodes", self.edges.len())
    }
}

pub fn build<T: AsRef<str>>(pairs: &[(T, T)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in pairs {
        g.add_edge(a.as_ref(), b.as_ref());
    }
    g
}
`;

test('rust: impl methods are filed under the implementing type', () => {
  const r = chunker.chunkFile({ path: 'src/graph.rs', language: 'rust', text: RUST });
  assertWellFormed(r, RUST);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName}:${s.parent}`),
    [
      'struct:Graph:null',
      'impl:Graph:null',
      'method:Graph.new:Graph',
      'method:Graph.add_edge:Graph',
      'trait:Walk:null',
      'method:Walk.walk:Walk',
      'method:Walk.count:Walk',
      'impl:Graph:null',
      'method:Graph.fmt:Graph',
      'function:build:null',
    ],
  );
  const graph = symbolFor(r, 'Graph.add_edge');
  assert.equal(graph.doc, 'Adds an edge from `a` to `b`.');
  assert.equal(graph.signature, 'pub fn add_edge(&mut self, a: &str, b: &str)');
  const struct = r.symbols[0]!;
  assert.equal(struct.doc, 'A directed graph.\n\nNodes are interned strings.');
  assert.equal(struct.signature, 'pub struct Graph');
  assert.equal(struct.startLine, lineOf(RUST, '#[derive'));
  const structChunk = r.chunks.find((c) => c.kind === 'struct')!;
  assert.equal(structChunk.startLine, lineOf(RUST, '/// A directed graph.'));
  const impls = r.chunks.filter((c) => c.kind === 'impl');
  assert.deepEqual(
    impls.map((c) => c.signature),
    ['impl Graph', 'impl fmt::Display for Graph'],
  );
  assert.equal(symbolFor(r, 'Walk.walk').signature, 'fn walk(&self, start: &str) -> Vec<String>;');
  assert.equal(
    chunkFor(r, 'build').signature,
    'pub fn build<T: AsRef<str>>(pairs: &[(T, T)]) -> Graph',
  );
});

const JAVA = `package org.example.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * A directed graph.
 *
 * @param <T> node type
 */
@SuppressWarnings("unchecked")
public class Graph<T> implements Iterable<T> {
  private final List<T> nodes = new ArrayList<>();

  /** Creates an empty graph. */
  public Graph() {}

  /**
   * Adds a node.
   *
   * @param node the node
   * @return true when added
   */
  @Override
  public boolean add(T node) throws IllegalStateException {
    if (node == null) {
      throw new IllegalStateException("null");
    }
    return nodes.add(node);
  }

  enum Mode {
    DIRECTED,
    UNDIRECTED
  }

  static class Edge<T> {
    T from;
    T to;

    // Reverses the edge.
    Edge<T> reversed() {
      Edge<T> e = new Edge<>();
      e.from = to;
      e.to = from;
      return e;
    }
  }
}
`;

test('java: javadoc, annotations, constructors and nested types', () => {
  const r = chunker.chunkFile({ path: 'Graph.java', language: 'java', text: JAVA });
  assertWellFormed(r, JAVA);
  assert.deepEqual(
    r.symbols.map((s) => `${s.kind}:${s.qualifiedName}:${s.parent}`),
    [
      'class:Graph:null',
      'method:Graph.Graph:Graph',
      'method:Graph.add:Graph',
      'enum:Graph.Mode:Graph',
      'class:Graph.Edge:Graph',
      'method:Graph.Edge.reversed:Graph.Edge',
    ],
  );
  const graph = chunkFor(r, 'Graph');
  assert.equal(graph.startLine, lineOf(JAVA, '/**'));
  assert.equal(graph.endLine, JAVA.split('\n').length - 1);
  assert.equal(graph.signature, 'public class Graph<T> implements Iterable<T>');
  assert.equal(graph.doc, 'A directed graph.\n\n@param <T> node type');
  const add = symbolFor(r, 'Graph.add');
  assert.equal(add.signature, 'public boolean add(T node) throws IllegalStateException');
  assert.equal(add.doc, 'Adds a node.\n\n@param node the node\n@return true when added');
  assert.equal(add.startLine, lineOf(JAVA, '@Override'));
  assert.equal(symbolFor(r, 'Graph.Graph').doc, 'Creates an empty graph.');
  assert.equal(symbolFor(r, 'Graph.Edge.reversed').doc, 'Reverses the edge.');
});

test('java: a big class is split per member', async () => {
  const small = await createChunker({ maxChunkLines: 15, minChunkLines: 1 });
  const r = small.chunkFile({ path: 'Graph.java', language: 'java', text: JAVA });
  assertWellFormed(r, JAVA);
  assert.deepEqual(
    r.chunks.map((c) => `${c.kind}:${c.symbol}`),
    [
      'block:null',
      'class:Graph',
      'method:Graph.Graph',
      'method:Graph.add',
      'enum:Graph.Mode',
      'class:Graph.Edge',
    ],
  );
  const add = chunkFor(r, 'Graph.add');
  assert.equal(add.startLine, lineOf(JAVA, '/**', lineOf(JAVA, 'public Graph()')));
  assert.equal(add.doc, 'Adds a node.\n\n@param node the node\n@return true when added');
});
