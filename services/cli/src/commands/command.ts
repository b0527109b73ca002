import type { CliIO } from '../io.js';

/**
 * A CLI command module. main.ts loads each lazily, so `codesift search` never
 * pays for tree-sitter or the indexing pipeline at start-up.
 */
export interface CommandModule {
  /** Full usage text printed by `--help` and after a usage error. */
  help: string;
  /** Runs the command; returns the exit code (see EXIT). Throws UsageError or CodesiftError. */
  run(argv: string[], io: CliIO): Promise<number>;
}
