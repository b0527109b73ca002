/**
 * The repository config file, <root>/.codesift/config.json or
 * <root>/.codesift.json. One file holds every reader's section (`search`,
 * `llm`, `context`, …): this module finds and parses it once, and each
 * reader validates only its own keys.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CodesiftError, errorMessage } from './errors.js';

export const CONFIG_FILES: readonly string[] = [
  path.join('.codesift', 'config.json'),
  '.codesift.json',
];

/** The config file that applies to `root`, or null when there is none. */
export function findConfigFile(root: string): string | null {
  for (const rel of CONFIG_FILES) {
    const file = path.join(root, rel);
    if (existsSync(file)) return file;
  }
  return null;
}

/** The file's JSON object; INVALID_ARGUMENT when it cannot be read or is not an object. */
export function readConfigFile(file: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CodesiftError('INVALID_ARGUMENT', `cannot read ${file}: ${errorMessage(err)}`, {
      hint: 'fix the JSON or remove the file',
    });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CodesiftError('INVALID_ARGUMENT', `${file}: the file must hold a JSON object`, {
      hint: 'fix the JSON or remove the file',
    });
  }
  return json as Record<string, unknown>;
}
