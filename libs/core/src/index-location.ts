/**
 * Where a local index lives by default: `<root>/.codesift/index.db`. Here in
 * core, not in the pipeline that writes it, so that commands which only read
 * an index (`codesift search`) find it without loading the indexing code.
 */
export const DEFAULT_INDEX_DIR = '.codesift';
export const INDEX_FILE = 'index.db';
