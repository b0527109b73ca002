import { lstatSync } from 'node:fs';
import path from 'node:path';
import { detectLanguage } from '@codesift/analysis';
import type { ScannedFile } from '@codesift/core';
import { PathFilter } from './path-filter.js';
import { tooLargeDetail } from './read-file.js';
import { DEFAULT_MAX_FILE_BYTES, type ScanOptions, type SkippedFile } from './types.js';

/**
 * The scan narrowed to known files, for a watcher that knows what changed:
 * each root-relative path is checked by the scan's rules (PathFilter) and
 * stat'ed, not found by walking the tree, so the cost follows the number of
 * changes rather than the size of the tree. `files` holds the paths that
 * would be indexed, `gone` the others (deleted, or left out by the rules).
 * Returns null when a path is a directory or a symbolic link: what those
 * hold (links are resolved and de-duplicated by the walk) needs a full scan.
 */
export function scanFiles(
  paths: readonly string[],
  options: Omit<ScanOptions, 'signal'>,
): { files: ScannedFile[]; gone: string[]; skippedFiles: SkippedFile[] } | null {
  const root = path.resolve(options.root);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const filter = new PathFilter({
    root,
    excludeDirs: options.excludeDirs,
    extraIgnore: options.extraIgnore,
    includeVendored: options.includeVendored,
    includeSecrets: options.includeSecrets,
  });
  const files: ScannedFile[] = [];
  const gone: string[] = [];
  const skippedFiles: SkippedFile[] = [];
  for (const rel of [...new Set(paths)].sort()) {
    if (rel === '' || PathFilter.isIgnoreFile(rel)) return null;
    const abs = path.join(root, ...rel.split('/'));
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(abs);
    } catch {
      gone.push(rel);
      continue;
    }
    if (st.isDirectory() || st.isSymbolicLink()) return null;
    if (!st.isFile() || filter.ignores(rel, 'file')) {
      gone.push(rel);
    } else if (st.size > maxFileBytes) {
      gone.push(rel);
      skippedFiles.push({
        path: rel,
        reason: 'too-large',
        detail: tooLargeDetail(st.size, maxFileBytes),
      });
    } else {
      files.push({
        path: rel,
        absPath: abs,
        size: st.size,
        mtimeMs: st.mtimeMs,
        language: detectLanguage(rel),
        ...(filter.explicit(rel) ? { explicit: true } : {}),
      });
    }
  }
  return { files, gone, skippedFiles };
}
