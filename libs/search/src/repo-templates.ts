/**
 * The indexed repository's issue and pull-request templates, read once per
 * index version: their lines are cut from pasted reports as boilerplate
 * (@codesift/query templateLines, stripBoilerplate). The files are found in
 * the manifest and read like getSnippet reads them (stores, else disk); a store that
 * cannot list its files, or files no longer on disk, give no lines: the
 * search goes on with the generic boilerplate rules.
 */
import {
  isTemplatePath,
  MAX_TEMPLATE_FILES,
  TEMPLATE_PATH_HINTS,
  templateLines,
} from '@codesift/query';
import { readIndexedLines } from './indexed-file.js';
import type { SearchIndex } from './search-index.js';

/** Lines read per template file at most. */
const MAX_TEMPLATE_LINES = 400;

export async function readTemplateLines(
  index: Pick<SearchIndex, 'location' | 'manifest' | 'meta' | 'fileTexts'>,
): Promise<Set<string>> {
  const { manifest } = index;
  if (!manifest.all && !manifest.paths) return new Set();
  let paths: string[];
  try {
    // Where the store can, only the paths that may be templates: a one-shot
    // search pays this at start, and listing 300,000 paths took most of a second.
    const all = manifest.paths
      ? await manifest.paths(TEMPLATE_PATH_HINTS)
      : [...(await manifest.all!()).keys()];
    paths = all.filter(isTemplatePath).sort();
  } catch {
    return new Set();
  }
  const files: { path: string; text: string }[] = [];
  for (const p of paths.slice(0, MAX_TEMPLATE_FILES)) {
    try {
      const s = await readIndexedLines(index, p, 1, MAX_TEMPLATE_LINES);
      files.push({ path: p, text: s.text });
    } catch {
      // Gone from disk since indexing, or not readable: that template is skipped.
    }
  }
  return templateLines(files);
}
