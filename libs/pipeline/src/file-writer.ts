import type { FileCommit, LocalIndex } from '@codesift/stores';

/**
 * Collects finished files and writes them in transactions of `commitEvery`
 * files. Each transaction replaces whole files together with their manifest
 * entries, so whatever is committed when a run dies is complete.
 */
export class FileWriter {
  filesNew = 0;
  filesChanged = 0;
  chunks = 0;
  symbols = 0;
  vectors = 0;
  private batch: FileCommit[] = [];

  constructor(
    private readonly index: Pick<LocalIndex, 'commitFiles'>,
    private readonly commitEvery: number,
  ) {}

  add(commit: FileCommit, isNew: boolean): void {
    this.batch.push(commit);
    if (isNew) this.filesNew++;
    else this.filesChanged++;
    this.chunks += commit.chunks.length;
    this.symbols += commit.symbols.length;
    if (this.batch.length >= this.commitEvery) this.flush();
  }

  flush(): void {
    if (this.batch.length === 0) return;
    this.index.commitFiles(this.batch);
    for (const c of this.batch) this.vectors += c.vectors?.length ?? 0;
    this.batch = [];
  }
}
