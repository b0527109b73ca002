/**
 * Which paths a run skipped, by reason, for the summary (`codesift index
 * --json` "skippedPaths"): enough to see why a file is missing without a
 * 10,000-line answer. The counts in the summary's `skipped` stay complete;
 * plain 'ignored' paths (node_modules, .gitignore'd trees) are not listed,
 * as the scanner does not record them either.
 */
import type { SkipReason } from '@codesift/core';
import type { SkippedFile } from '@codesift/scanner';
import type { LanguageFiles } from './progress.js';

/** Paths listed per reason at most. */
export const SKIPPED_PATHS_PER_REASON = 20;

export class SkippedPaths {
  private readonly byReason = new Map<SkipReason, Set<string>>();

  /** The scanner's skips (already without plain 'ignored' ones), then those found on reading. */
  constructor(scanned: readonly SkippedFile[] = []) {
    for (const s of scanned) this.add(s.path, s.reason);
  }

  add(path: string, reason: SkipReason): void {
    if (reason === 'ignored') return;
    let paths = this.byReason.get(reason);
    if (!paths) {
      paths = new Set();
      this.byReason.set(reason, paths);
    }
    if (paths.size < SKIPPED_PATHS_PER_REASON) paths.add(path);
  }

  /** Reasons in name order, each with up to SKIPPED_PATHS_PER_REASON of its paths, sorted. */
  toJSON(): Partial<Record<SkipReason, string[]>> {
    const out: Partial<Record<SkipReason, string[]>> = {};
    for (const reason of [...this.byReason.keys()].sort()) {
      out[reason] = [...this.byReason.get(reason)!].sort();
    }
    return out;
  }
}

/**
 * Files of a run counted by language with why: those that got no AST chunks
 * (IndexSummary.noAst), those chunked by the brace recognizer (structural).
 */
export class FilesByLanguage {
  private readonly byLanguage = new Map<string, LanguageFiles>();

  add(path: string, language: string, reason: string): void {
    let entry = this.byLanguage.get(language);
    if (!entry) {
      entry = { files: 0, reason, paths: [] };
      this.byLanguage.set(language, entry);
    }
    entry.files++;
    if (entry.paths.length < SKIPPED_PATHS_PER_REASON) entry.paths.push(path);
  }

  /** Languages in name order, paths sorted. */
  toJSON(): Record<string, LanguageFiles> {
    const out: Record<string, LanguageFiles> = {};
    for (const language of [...this.byLanguage.keys()].sort()) {
      const e = this.byLanguage.get(language)!;
      out[language] = { files: e.files, reason: e.reason, paths: [...e.paths].sort() };
    }
    return out;
  }
}
