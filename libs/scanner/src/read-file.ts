import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errorMessage, type ScannedFile, sha256Hex } from '@codesift/core';
import { decodeText, isBinaryContent } from './content.js';
import { minifiedDetail } from './minified.js';
import { redactSecrets } from './redact-secrets.js';
import { DEFAULT_SECRET_POLICY, type SecretPolicy } from './secret-policy.js';
import { hasGeneratedMarker } from './skip-rules.js';
import { DEFAULT_MAX_FILE_BYTES, type ReadOutcome } from './types.js';

// Non-blocking open so that a FIFO swapped in after the scan cannot hang the
// read; the fstat below then refuses it. O_NONBLOCK does not exist on Windows.
//
// Synchronous calls on purpose: a source file is small and local, and the
// promise API's four round trips per file (open, stat, read to EOF, close)
// cost more main-thread time than the reads themselves (about 0.7 s of 4.2 s
// indexing 5,000 files keyword-only; synchronous: 3,870 -> 4,850 chunks/s).
// A read is at most --max-file-bytes, so the event loop is held briefly.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A file at least this much private-key block (by non-whitespace characters) is skipped. */
const PRIVATE_KEY_FILE_SHARE = 0.5;

/**
 * Reads, classifies, hashes and decodes one scanned file, with its secrets
 * redacted (redact-secrets.ts), or skipped when it holds any and the policy
 * is `skip`: everything that indexes content reads it here, so no runtime
 * stores a secret. Never throws: any failure comes back as a skip, since
 * files change and vanish between the scan and the read.
 */
export async function readFileContent(
  file: ScannedFile,
  options?: { maxFileBytes?: number; secrets?: SecretPolicy },
): Promise<ReadOutcome> {
  const maxFileBytes = options?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const policy = options?.secrets ?? DEFAULT_SECRET_POLICY;
  const skip = (
    reason: 'unreadable' | 'too-large' | 'binary' | 'generated' | 'minified' | 'secret',
    detail?: string,
  ) =>
    ({
      ok: false,
      skip:
        detail === undefined ? { path: file.path, reason } : { path: file.path, reason, detail },
    }) as const;

  let fd: number | undefined;
  try {
    fd = openSync(file.absPath, OPEN_FLAGS);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return skip('unreadable', 'not a regular file');
    if (stat.size > maxFileBytes) return skip('too-large', tooLargeDetail(stat.size, maxFileBytes));
    const bytes = readAtMost(fd, stat.size, maxFileBytes);
    if (bytes === undefined) {
      return skip('too-large', `grew past the ${maxFileBytes}-byte limit while being read`);
    }
    if (isBinaryContent(bytes)) return skip('binary', 'binary content');
    const { text, lossy } = decodeText(bytes);
    if (!file.explicit) {
      if (hasGeneratedMarker(text)) return skip('generated', 'generated-code marker in header');
      const minified = minifiedDetail(text);
      if (minified) return skip('minified', minified);
    }
    const redaction = redactSecrets(text);
    if (redaction.privateKeyShare >= PRIVATE_KEY_FILE_SHARE) {
      return skip('secret', 'mostly a private key block');
    }
    const rules = Object.keys(redaction.counts);
    if (policy === 'skip' && rules.length > 0) {
      // The rule names only: a skip's detail is printed and logged.
      return skip('secret', `holds secrets (${rules.sort().join(', ')}); policy skip`);
    }
    return {
      ok: true,
      file: {
        ...file,
        size: bytes.length,
        mtimeMs: stat.mtimeMs,
        // Of the bytes on disk, so change detection sees every edit.
        hash: sha256Hex(bytes),
        text: redaction.text,
        lossy,
      },
      secretsRedacted: redaction.counts,
    };
  } catch (err) {
    return skip('unreadable', describeError(err));
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already read or skipped: a failed close changes nothing.
      }
    }
  }
}

export function tooLargeDetail(size: number, limit: number): string {
  return `${size} bytes exceeds the ${limit}-byte limit`;
}

export function describeError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = errorMessage(err);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}

/**
 * Reads the whole file, trusting neither the stat size (it may have changed)
 * nor the file to stop growing: undefined once more than `limit` bytes arrive.
 */
function readAtMost(fd: number, expected: number, limit: number): Uint8Array | undefined {
  // One byte of headroom tells "exactly at the limit" from "grew past it".
  let buffer = Buffer.allocUnsafe(Math.min(expected, limit) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > limit) return undefined;
      const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return length > limit ? undefined : buffer.subarray(0, length);
}
