import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeQuery } from '@codesift/analysis';
import { SNIPPET_MAX_LINE_CHARS, selectSnippet } from './snippet.js';

const terms = (q: string) => new Set(analyzeQuery(q));

const chunk = [
  'export class Graph {',
  '  private nodes = new Set<string>();',
  '',
  '  addNode(id: string): void {',
  '    this.nodes.add(id);',
  '  }',
  '',
  '  /** Inserts an edge between two nodes. */',
  '  addEdge(from: string, to: string): void {',
  '    this.addNode(from);',
  '    this.addNode(to);',
  '    this.edges.push([from, to]);',
  '  }',
  '',
  '  size(): number {',
  '    return this.nodes.size;',
  '  }',
  '}',
].join('\n');

describe('selectSnippet', () => {
  it('picks the window covering the most query terms', () => {
    const s = selectSnippet(chunk, 100, terms('edge'));
    assert.ok(s.text.includes('Inserts an edge'), s.text);
    assert.ok(s.text.includes('this.edges.push'), s.text);
    assert.ok(s.text.split('\n').length <= 8);
    assert.equal(s.startLine, 100 + chunk.split('\n').indexOf(s.text.split('\n')[0]!));
    assert.equal(s.endLine - s.startLine + 1, s.text.split('\n').length);
  });

  it('matches identifiers by their parts, as the analyzer does', () => {
    const s = selectSnippet(chunk, 1, terms('size'));
    assert.ok(s.text.includes('size(): number'), s.text);
  });

  it('shows the first lines when no query term occurs (a vector-only hit)', () => {
    const s = selectSnippet(`\n\n${chunk}`, 10, terms('zebra'));
    assert.equal(s.startLine, 12);
    assert.ok(s.text.startsWith('export class Graph'));
    assert.equal(s.text.split('\n').length, 8);
  });

  it('returns a short chunk whole, trimmed of blank edge lines', () => {
    const s = selectSnippet('\nconst a = 1;\nconst b = 2;\n\n', 5, terms('b'));
    assert.deepEqual(s, { text: 'const a = 1;\nconst b = 2;', startLine: 6, endLine: 7 });
  });

  it('bounds very long lines', () => {
    const s = selectSnippet(`const x = "${'a'.repeat(5000)}";`, 1, terms('x'));
    assert.ok(s.text.length <= SNIPPET_MAX_LINE_CHARS + 1);
    assert.ok(s.text.endsWith('…'));
  });

  it('honours a smaller line budget', () => {
    const s = selectSnippet(chunk, 1, terms('addEdge'), 2);
    assert.equal(s.text.split('\n').length, 2);
    assert.ok(s.text.includes('addEdge('), s.text);
  });
});
