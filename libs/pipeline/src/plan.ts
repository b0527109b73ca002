import type { FileRecord, ScannedFile } from '@codesift/core';

/**
 * What an incremental run must do, decided from stat data alone: files not in
 * the manifest or whose size/mtime moved are read; the rest are untouched;
 * manifest entries without a scanned file are deleted. Pure, so it is tested
 * without a disk.
 */
export interface IndexPlan {
  toProcess: { file: ScannedFile; previous: FileRecord | undefined }[];
  unchanged: number;
  toDelete: string[];
}

export function planIndex(
  scanned: readonly ScannedFile[],
  manifest: ReadonlyMap<string, FileRecord>,
  rebuild: boolean,
): IndexPlan {
  const toProcess: IndexPlan['toProcess'] = [];
  let unchanged = 0;
  const seen = new Set<string>();
  for (const file of scanned) {
    seen.add(file.path);
    const previous = manifest.get(file.path);
    if (!rebuild && previous && previous.size === file.size && previous.mtimeMs === file.mtimeMs) {
      unchanged++;
    } else {
      toProcess.push({ file, previous });
    }
  }
  const toDelete = [...manifest.keys()].filter((p) => !seen.has(p));
  return { toProcess, unchanged, toDelete };
}
