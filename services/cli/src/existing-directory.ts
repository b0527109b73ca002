import { existsSync, statSync } from 'node:fs';
import { CodesiftError } from '@codesift/core';

/** `dir` (absolute) when it is an existing directory; else a clear error with `hint`. */
export function existingDirectory(dir: string, hint: string): string {
  if (!existsSync(dir))
    throw new CodesiftError('ENOENT_ROOT', `directory not found: ${dir}`, { hint });
  if (!statSync(dir).isDirectory()) {
    throw new CodesiftError('NOT_A_DIRECTORY', `not a directory: ${dir}`, { hint });
  }
  return dir;
}
