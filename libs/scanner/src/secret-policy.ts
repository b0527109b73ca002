/*
 * What indexing does with a file whose content holds a secret: `redact`
 * (the default) stores it with each secret replaced by `[REDACTED:<rule>]`;
 * `skip` leaves the whole file out of the index, as a `.env` is. Set per
 * tree by `"secrets"` in the repository config file, or per run by the
 * caller (`codesift index --secrets`), which wins.
 */
import { CodesiftError, findConfigFile, readConfigFile } from '@codesift/core';

export type SecretPolicy = 'redact' | 'skip';

export const SECRET_POLICIES: readonly SecretPolicy[] = ['redact', 'skip'];
export const DEFAULT_SECRET_POLICY: SecretPolicy = 'redact';

export function isSecretPolicy(value: unknown): value is SecretPolicy {
  return SECRET_POLICIES.includes(value as SecretPolicy);
}

/**
 * The policy for the tree at `root`: the config file's `"secrets"`, else the
 * default. A wrong value is an error naming the file, never a silent default:
 * a user who asked for `skip` must not get secrets stored.
 */
export function secretPolicyFor(root: string): SecretPolicy {
  const file = findConfigFile(root);
  if (file === null) return DEFAULT_SECRET_POLICY;
  const value = readConfigFile(file).secrets;
  if (value === undefined) return DEFAULT_SECRET_POLICY;
  if (!isSecretPolicy(value)) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `${file}: "secrets" must be ${SECRET_POLICIES.map((p) => `"${p}"`).join(' or ')}, got ${JSON.stringify(value)}`,
      { hint: 'fix the value or remove the key (default "redact")' },
    );
  }
  return value;
}
