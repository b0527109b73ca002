import { createHash, timingSafeEqual } from 'node:crypto';
import { CodesiftError } from './errors.js';

// The one authentication rule of every codesift server that takes commands
// over the network (`codesift serve`, `codesift mcp --http`, the cluster's
// query service): a bearer token, or an explicit opt-out that only loopback
// may use.

/** The flag every server takes to run without a token (loopback only). */
export const INSECURE_NO_AUTH_FLAG = '--insecure-no-auth';

/**
 * True when `authorization` carries `Bearer <token>`. Both sides are hashed
 * first so the comparison takes the same time whatever the length or content
 * of the guess: timingSafeEqual needs equal lengths, and comparing lengths
 * directly would leak the token's length.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  if (!authorization) return false;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  if (!match) return false;
  const given = createHash('sha256').update(match[1]!, 'utf8').digest();
  const expected = createHash('sha256').update(token, 'utf8').digest();
  return timingSafeEqual(given, expected);
}

/** Host names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (
    h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1'
  );
}

/** Below this length a token is guessable over the network; the server warns but starts. */
export const MIN_TOKEN_LENGTH = 16;

/** A warning for the log when the token is weak, else null. */
export function weakTokenWarning(token: string | null): string | null {
  if (token === null || token.length >= MIN_TOKEN_LENGTH) return null;
  return `warning: the bearer token has only ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (e.g. \`openssl rand -hex 32\`)`;
}

/** True for the values an environment variable uses to switch a flag on. */
export function envFlag(value: string | undefined): boolean {
  return /^(1|true|yes|on)$/i.test(value?.trim() ?? '');
}

/**
 * Decides how a server authenticates. A token is required; running without
 * one needs an explicit opt-out (`--insecure-no-auth`, or
 * CODESIFT_INSECURE_NO_AUTH=1 for a service configured by its environment:
 * `optOut` names it in the hint)
 * and is only allowed on loopback, where nothing off this machine can reach
 * the server. Returns the token, or null for no authentication. `server`
 * names the server in the error ("the gRPC server").
 */
export function resolveServerAuth(options: {
  token: string | undefined;
  insecureNoAuth: boolean;
  host: string;
  server: string;
  /** How this server is told to run without a token; default the flag. */
  optOut?: string;
}): string | null {
  const token = options.token?.trim() || undefined;
  // A token, when there is one, always wins: --insecure-no-auth only permits
  // running without one, it never switches off a token that was configured.
  if (token) return token;
  if (options.insecureNoAuth) {
    if (!isLoopbackHost(options.host)) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `refusing to serve without authentication on ${options.host}, which is not a loopback address`,
        { hint: 'pass --token <secret> (or set CODESIFT_TOKEN), or bind to 127.0.0.1' },
      );
    }
    return null;
  }
  throw new CodesiftError('INVALID_ARGUMENT', `${options.server} needs a bearer token`, {
    hint: `pass --token <secret> or set CODESIFT_TOKEN (e.g. \`openssl rand -hex 32\`); ${options.optOut ?? INSECURE_NO_AUTH_FLAG} serves loopback without one`,
  });
}
