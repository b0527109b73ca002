/*
 * The secret patterns, as data: one entry per kind of credential, named by the
 * id that appears in the redaction marker and the index summary. They follow
 * the shapes the providers document (and gitleaks encodes): fixed prefixes and
 * lengths wherever a provider has them, so ordinary code does not trip them.
 * The specific rules come first; the generic assignment rule last, so a known
 * token inside an assignment is named by its provider.
 */

export interface SecretRule {
  id: string;
  /** Cheap substring test run before the regex; the regex only runs on files holding one. */
  hints?: readonly string[];
  /**
   * Global regex with the `d` flag. Group `secret` is what gets redacted;
   * without it the whole match is.
   */
  pattern: RegExp;
  /** Extra check on the secret text; the match is ignored when it says false. */
  accept?: (secret: string) => boolean;
}

/** Names of settings whose values are credentials. */
const SECRET_KEYWORDS =
  '(?:passw(?:or)?d|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|token|credentials?)';

export const PRIVATE_KEY_RULE_ID = 'private-key';

export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: PRIVATE_KEY_RULE_ID,
    hints: ['PRIVATE KEY'],
    pattern:
      /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/dg,
  },
  {
    // No hints: five substring searches cost more than this regex's own scan.
    id: 'aws-access-key',
    pattern: /\b(?<secret>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b/dg,
  },
  {
    id: 'aws-secret-key',
    pattern:
      /aws_?secret(?:_?access)?_?key["']?\s*(?:=|:|:=|=>)\s*["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi,
  },
  {
    // A storage account key (512 bits, base64) in a connection string.
    id: 'azure-storage-key',
    hints: ['AccountKey='],
    pattern: /AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)/dg,
  },
  {
    // An Entra ID (Azure AD) client secret: three characters, a digit, then
    // the `Q~` that marks the format, then 31 to 34 more.
    id: 'azure-client-secret',
    hints: ['Q~'],
    pattern:
      /(?<![A-Za-z0-9_~.-])(?<secret>[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])/dg,
    accept: (s) => /[A-Z]/.test(s.slice(6)) && /[a-z]/.test(s.slice(6)),
  },
  {
    id: 'github-token',
    hints: ['ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_', 'github_pat_'],
    pattern: /\b(?<secret>gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/dg,
  },
  {
    id: 'gitlab-token',
    hints: ['glpat-'],
    pattern: /\b(?<secret>glpat-[A-Za-z0-9_-]{20,})/dg,
  },
  {
    id: 'slack-token',
    hints: ['xox'],
    pattern: /\b(?<secret>xox[abposre]-[0-9A-Za-z]{8,}(?:-[0-9A-Za-z]+)+)/dg,
  },
  {
    id: 'stripe-key',
    hints: ['k_live_'],
    pattern: /\b(?<secret>[sr]k_live_[0-9A-Za-z]{20,})/dg,
  },
  {
    id: 'google-api-key',
    hints: ['AIza'],
    pattern: /\b(?<secret>AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])/dg,
  },
  {
    id: 'openai-key',
    hints: ['sk-'],
    pattern: /\b(?<secret>sk-(?:[a-z]+-)?[A-Za-z0-9_-]{32,})/dg,
    // Random keys mix cases and digits; a long kebab-case word after `sk-` does not.
    accept: (s) => /[0-9]/.test(s) && /[A-Z]/.test(s) && /[a-z]/.test(s),
  },
  {
    id: 'npm-token',
    hints: ['npm_'],
    pattern: /\b(?<secret>npm_[A-Za-z0-9]{36})\b/dg,
  },
  {
    id: 'jwt',
    hints: ['eyJ'],
    pattern:
      /\b(?<secret>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})(?![A-Za-z0-9_-])/dg,
  },
  {
    // `password = "..."`, `secret: ...`, `"api_key": "..."`: only the value is
    // redacted, and only when it looks random (see isHighEntropySecret).
    id: 'secret-assignment',
    pattern: new RegExp(
      `${SECRET_KEYWORDS}[A-Za-z0-9_-]*["']?[ \\t]*(?:=|:|:=|=>)[ \\t]*(["'\`]?)(?<secret>[^\\s"'\`,;]{12,200})\\1(?![^\\s"'\`,;])`,
      'dgi',
    ),
    accept: (s) => isHighEntropySecret(s),
  },
];

/** Bits per character above which an assigned value counts as random. */
export const ENTROPY_THRESHOLD = 3.5;

/**
 * Values that stand for a secret without being one: templates, environment
 * lookups, fill-me-in words, masks.
 */
const PLACEHOLDER_PATTERNS: readonly RegExp[] = [
  /\$\{|\{\{|%\(|<[^>]*>/, // ${VAR}, {{ var }}, %(name)s, <token>
  /^\$/, // $VAR
  /x{3,}|\*{3,}|\.{3}/i, // xxx, ***, ...
  /change_?me|placeholder|example|your[-_]|dummy|redacted|fixme|todo/i,
  /process\.env|os\.environ|getenv|env\(/i,
];

/**
 * True for a value that looks like a generated secret: letters and digits
 * mixed, random enough, not a placeholder, not a path or an expression.
 */
export function isHighEntropySecret(value: string): boolean {
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  // Code, not a literal: calls, indexing, paths and URLs.
  if (/[()[\]]/.test(value) || value.includes('://') || /^[./~]/.test(value)) return false;
  if (PLACEHOLDER_PATTERNS.some((re) => re.test(value))) return false;
  // Lower-case words joined by separators name something ("prod/db/creds-v2"):
  // generated secrets mix cases or symbols.
  if (/^[a-z]+[0-9]*(?:[/_.:-][a-z]+[0-9]*)+$/.test(value)) return false;
  return shannonEntropy(value) >= ENTROPY_THRESHOLD;
}

/** Shannon entropy of the characters of `s`, in bits per character. */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
