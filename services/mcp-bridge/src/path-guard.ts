/**
 * Checks a path an agent passed before it reaches the engine. The engine's
 * getSnippet already refuses to leave the indexed root; this second check
 * gives the model a precise message and keeps hostile input away from the
 * filesystem layer altogether. Returns a reason when the path is refused.
 */
export function rejectUnsafePath(p: string): string | null {
  if (p.includes('\0')) return 'the path contains a NUL byte';
  if (p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) {
    return 'absolute paths are not allowed; pass the path relative to the indexed root, as search_code returns it';
  }
  if (p.startsWith('~'))
    return 'home-directory paths are not allowed; pass a path relative to the indexed root';
  const segments = p.split(/[\\/]+/);
  if (segments.includes('..'))
    return "paths may not contain '..'; they must stay inside the indexed root";
  if (segments.every((s) => s === '' || s === '.')) return 'the path names no file';
  if (segments.some((s) => PRIVATE_DIRS.has(s))) {
    return 'files under .git and the index directory are not part of the indexed code';
  }
  const name = segments.filter((s) => s !== '').at(-1) ?? '';
  if (SECRET_NAMES.some((re) => re.test(name))) {
    return 'this looks like a secrets file, which codesift never indexes or serves';
  }
  return null;
}

/**
 * The engine's getSnippet serves only files the index holds. Over MCP the
 * root is exposed to a model (and, with --http, to the network), so the
 * files the indexer leaves out for safety are refused here by name as well,
 * before the engine is asked: VCS internals, the index itself and the usual
 * secret stores (same spirit as the scanner's secret rule). A second line of
 * defence, and a precise message for the model.
 */
const PRIVATE_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.codesift']);
const SECRET_NAMES: readonly RegExp[] = [
  /^\.env$/i,
  /^\.env\.(?!(example|sample|template|dist)$)/i,
  /^\.(netrc|pgpass|pypirc|htpasswd)$/i,
  /^(credentials|secrets)(\.(json|ya?ml))?$/i,
  /^client_secret.*\.json$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(?!.*\.pub$)/,
  /\.(pem|key|p12|pfx|jks|keystore)$/i,
];

/** Drops a leading `./` and doubled slashes so `./src//a.ts` reads as `src/a.ts`. */
export function normalizeRelativePath(p: string): string {
  return p
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}
