// Assertions shared by the chunker tests; not part of the public API.
import assert from 'node:assert/strict';
import type { Chunk, SymbolInfo } from '@codesift/core';
import type { ChunkResult } from '../chunker.js';

/** 1-based line of the first line containing `needle` (after line `after`). */
export function lineOf(text: string, needle: string, after = 0): number {
  const lines = text.split('\n');
  for (let i = after; i < lines.length; i++) {
    if (lines[i]!.includes(needle)) return i + 1;
  }
  throw new Error(`fixture has no line containing ${JSON.stringify(needle)}`);
}

/** Exact source text of lines [start, end], without the last line's terminator. */
export function sourceLines(text: string, start: number, end: number): string {
  return text
    .split('\n')
    .slice(start - 1, end)
    .join('\n')
    .replace(/\r$/, '');
}

export function chunkFor(result: ChunkResult, symbol: string): Chunk {
  const found = result.chunks.filter((c) => c.symbol === symbol);
  assert.equal(
    found.length,
    1,
    `expected one chunk for ${symbol}, got ${found.length}: ${describe(result)}`,
  );
  return found[0]!;
}

export function symbolFor(result: ChunkResult, qualifiedName: string): SymbolInfo {
  const found = result.symbols.filter((s) => s.qualifiedName === qualifiedName);
  assert.equal(
    found.length,
    1,
    `expected one symbol ${qualifiedName}, have ${result.symbols.map((s) => s.qualifiedName).join(', ')}`,
  );
  return found[0]!;
}

export function describe(result: ChunkResult): string {
  return result.chunks.map((c) => `${c.startLine}-${c.endLine}:${c.kind}:${c.symbol}`).join(' ');
}

/**
 * Invariants every result must satisfy: content is the exact source of its
 * line range, ranges are sane and in order, and every non-blank line is in
 * some chunk.
 */
export function assertWellFormed(result: ChunkResult, text: string): void {
  const lines = text.split('\n');
  const covered = new Set<number>();
  let prevStart = 0;
  for (const c of result.chunks) {
    assert.ok(
      c.startLine >= 1 && c.endLine >= c.startLine,
      `bad range ${c.startLine}-${c.endLine}`,
    );
    assert.ok(c.endLine <= lines.length, `range past end: ${c.endLine} > ${lines.length}`);
    assert.ok(c.startLine >= prevStart, `chunks out of order at ${c.startLine}`);
    prevStart = c.startLine;
    assert.equal(
      c.content,
      sourceLines(text, c.startLine, c.endLine),
      `content of ${c.startLine}-${c.endLine}`,
    );
    assert.match(c.id, /^[0-9a-f]{32}$/);
    for (let l = c.startLine; l <= c.endLine; l++) covered.add(l);
  }
  for (let l = 1; l <= lines.length; l++) {
    if (lines[l - 1]!.trim() !== '')
      assert.ok(covered.has(l), `line ${l} is in no chunk: ${lines[l - 1]}`);
  }
}
