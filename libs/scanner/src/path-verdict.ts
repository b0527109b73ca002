import type { SkipReason } from '@codesift/core';
import { CODESIFT_IGNORE_FILE, type IgnoreRules } from './ignore-rules.js';
import { classifyDirectory, classifyFileName } from './skip-rules.js';

/**
 * Why a path is left out by its ignore rules and name alone, shared by the
 * walk (scan.ts) and the watcher's filter (path-filter.ts) so both agree on
 * what belongs to the index. 'ignored' comes from the ignore files or extra
 * patterns; the other reasons from the built-in lists.
 */
export interface ClassifyOptions {
  includeVendored: boolean;
  includeSecrets: boolean;
}

/** Why the directory `rel` (named `name`) is not walked, if it is not. */
export function directorySkip(
  rules: IgnoreRules,
  rel: string,
  name: string,
  options: ClassifyOptions,
): SkipReason | undefined {
  const verdict = rules.test(rel, true);
  if (verdict.ignored) return 'ignored';
  return verdict.unignored ? undefined : classifyDirectory(name, options);
}

/** Why the file `rel` (named `name`) is left out before any stat, if it is. */
export function fileSkip(
  rules: IgnoreRules,
  rel: string,
  name: string,
  options: ClassifyOptions,
): SkipReason | undefined {
  return fileVerdict(rules, rel, name, options).skip;
}

/**
 * fileSkip's answer, and whether a negation in an ignore file names the file
 * itself (`!src/schema.gen.ts`): the user asked for it, so what the built-in
 * lists and the content rules guess (generated, minified) yields to that.
 */
export function fileVerdict(
  rules: IgnoreRules,
  rel: string,
  name: string,
  options: ClassifyOptions,
): { skip?: SkipReason; explicit: boolean } {
  const verdict = rules.test(rel, false);
  if (verdict.ignored) return { skip: 'ignored', explicit: false };
  // The ignore file itself holds rules, not code.
  if (name === CODESIFT_IGNORE_FILE) return { skip: 'ignored', explicit: false };
  const reason = classifyFileName(name, options);
  // An explicit negation (`!yarn.lock`) overrides the built-in lists, but
  // never the secret list: that one only opens with includeSecrets.
  if (reason && (reason === 'secret' || !verdict.unignored))
    return { skip: reason, explicit: false };
  return { explicit: verdict.unignored };
}
