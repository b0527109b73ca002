export { decodeText, isBinaryContent } from './content.js';
export { PathFilter, type PathFilterOptions, type PathKind } from './path-filter.js';
export { readFileContent } from './read-file.js';
export { addRedactionCounts, type Redaction, redactSecrets } from './redact-secrets.js';
export { scan } from './scan.js';
export { scanFiles } from './scan-files.js';
export {
  DEFAULT_SECRET_POLICY,
  isSecretPolicy,
  SECRET_POLICIES,
  type SecretPolicy,
  secretPolicyFor,
} from './secret-policy.js';
export type { ReadOutcome, ScanOptions, ScanResult, SkippedFile } from './types.js';
