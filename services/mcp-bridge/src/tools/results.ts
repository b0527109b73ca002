import { errorMessage, isCodesiftError } from '@codesift/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A successful tool result: text for the model, JSON for programs. */
export function okResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * A tool-level error. MCP reports these as results with `isError: true` so the
 * model sees the message and can correct itself, instead of a protocol error
 * that most clients only surface to the human.
 */
export function errorResult(message: string, hint?: string): CallToolResult {
  const text = hint ? `Error: ${message}\nHint: ${hint}` : `Error: ${message}`;
  return { content: [{ type: 'text', text }], isError: true };
}

/** Turns whatever an engine call threw into an error result; CodesiftErrors keep their code and hint. */
export function errorResultFrom(err: unknown): CallToolResult {
  if (isCodesiftError(err)) {
    return errorResult(`${err.message} (${err.code})`, err.hint);
  }
  return errorResult(`internal error: ${errorMessage(err)}`);
}

/**
 * Prefixes each line with its 1-based line number, right-aligned, the way
 * editors and `cat -n` show code, so the model can cite exact lines.
 */
export function numberLines(text: string, firstLine: number): string {
  const lines = text.split('\n');
  // A trailing newline would otherwise show up as an extra, empty numbered line.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((line, i) => `${String(firstLine + i).padStart(width)}  ${line}`).join('\n');
}
