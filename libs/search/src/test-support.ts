/**
 * For this package's tests: a tree of files written to a fresh temporary
 * directory and indexed keyword-only (no model), as a user's repository.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { indexRepository } from '@codesift/pipeline';

/** The directory to remove afterwards, and the index inside it. */
export async function indexTree(
  prefix: string,
  tree: Readonly<Record<string, string>>,
): Promise<{ dir: string; indexPath: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const root = path.join(dir, 'repo');
  for (const [rel, text] of Object.entries(tree)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  const indexPath = path.join(dir, 'index.db');
  await indexRepository({ root, indexPath, vectors: false });
  return { dir, indexPath };
}
