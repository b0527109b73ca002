import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/**
 * Creates a fresh temporary directory holding `files` (root-relative POSIX
 * path -> content), removed again when the test ends.
 */
export function makeTree(t: TestContext, files: Record<string, string | Uint8Array> = {}): string {
  const root = mkdtempSync(path.join(tmpdir(), 'codesift-scanner-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, ...rel.split('/'));
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  return root;
}
