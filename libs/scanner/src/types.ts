import type { FileContent, ScannedFile, SkipReason } from '@codesift/core';

export interface ScanOptions {
  /** Directory to scan. */
  root: string;
  /** Files larger than this are skipped as 'too-large', decided from stat alone. Default 1 MiB. */
  maxFileBytes?: number;
  /** Absolute paths of directories to skip entirely (e.g. the index dir `<root>/.codesift`). */
  excludeDirs?: string[];
  /** Extra gitignore-syntax patterns, relative to the root; they outrank the ignore files. */
  extraIgnore?: string[];
  /** Walk node_modules, vendor, .venv and friends. Default false. */
  includeVendored?: boolean;
  /** Index .env files, private keys and credential files. Default false. */
  includeSecrets?: boolean;
  signal?: AbortSignal;
}

export interface SkippedFile {
  /** Root-relative POSIX path (a directory's path when a whole directory was skipped). */
  path: string;
  reason: SkipReason;
  detail?: string;
}

export interface ScanResult {
  /** Accepted files sorted by path, with stat information only (nothing read). */
  files: ScannedFile[];
  /** Counts by reason. A skipped directory counts once, not per file inside. */
  skipped: Partial<Record<SkipReason, number>>;
  /** Every skip except plain 'ignored' ones, sorted by path, capped at MAX_SKIPPED_FILES. */
  skippedFiles: SkippedFile[];
}

export type ReadOutcome =
  | {
      ok: true;
      /** Its text has every secret replaced by a `[REDACTED:<rule>]` marker. */
      file: FileContent;
      /** Secrets redacted from the text, by rule id; empty when none. */
      secretsRedacted: Record<string, number>;
    }
  | { ok: false; skip: SkippedFile };

export const DEFAULT_MAX_FILE_BYTES = 1_048_576;
export const MAX_SKIPPED_FILES = 10_000;
