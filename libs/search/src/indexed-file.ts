/**
 * Reads lines of an indexed file for `getSnippet`: from the stores when they
 * keep its text (a cluster's index, so the query service needs no checkout),
 * otherwise from disk. Only files the index holds are readable, only inside their root, and only as regular
 * files: an indexed path swapped for a symlink (to the root's .env, say) or a
 * FIFO is refused. Only the bytes the index holds are served: a file whose
 * content no longer hashes to the manifest's record (edited, or replaced by a
 * hard link or a copy of another file) comes back stale with no text, so
 * nothing that was never indexed reaches a client. So .env files, keys, .git
 * and anything ignored stay out of reach even though they sit inside the
 * root. Secrets in the file are redacted as they were when it was indexed
 * (@codesift/scanner).
 */
import { constants, realpathSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import {
  CodesiftError,
  errorMessage,
  resolveInsideRoot,
  sha256Hex,
  splitRepositoryPath,
} from '@codesift/core';
// The redaction alone: the scanner's walking and ignore rules are not needed to read a file.
import { redactSecrets } from '@codesift/scanner/redact-secrets';
import type { SearchIndex } from './search-index.js';
import type { Snippet } from './types.js';

/** Lines returned at most, so a careless range cannot dump a huge file. */
const MAX_SNIPPET_LINES = 2000;

// No following a symlink in the last component (the open fails with ELOOP),
// and no blocking on a FIFO: the fstat below refuses it. Neither flag exists
// on Windows.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Lines startLine..endLine of `file` (clamped to the file), at most MAX_SNIPPET_LINES. */
export async function readIndexedLines(
  index: Pick<SearchIndex, 'location' | 'manifest' | 'meta' | 'fileTexts'>,
  file: string,
  startLine: number,
  endLine: number,
): Promise<Snippet> {
  if (typeof file !== 'string' || file.trim() === '') {
    throw new CodesiftError('INVALID_ARGUMENT', 'the path is empty');
  }
  if (!Number.isFinite(startLine) || !Number.isFinite(endLine)) {
    throw new CodesiftError('INVALID_ARGUMENT', `invalid line range ${startLine}-${endLine}`);
  }
  const meta = await index.meta();
  const rel = path.posix.normalize(file.replaceAll('\\', '/')).replace(/^\.\/+/, '');
  // In an index of many repositories a path starts with its repository's name,
  // and the file lives in that repository's directory.
  const repos = meta.repositories ?? {};
  const inRepository = splitRepositoryPath(repos, rel);
  if (inRepository === null && Object.keys(repos).length > 0) {
    throw new CodesiftError('INVALID_ARGUMENT', `${rel} is in none of the index's repositories`, {
      hint: 'paths in this index start with their repository name; search or find_symbol gives valid paths',
    });
  }
  const root = inRepository ? inRepository.root : meta.root;
  if (root === null) {
    throw new CodesiftError(
      'INDEX_INCOMPATIBLE',
      `index ${index.location} records no root directory`,
      {
        hint: 're-run `codesift index <dir>` so the index records where its files live',
      },
    );
  }
  const abs = resolveInsideRoot(root, inRepository ? inRepository.path : rel);
  const record = await index.manifest.get(rel);
  if (!record) {
    throw new CodesiftError('INVALID_ARGUMENT', `${rel} is not an indexed file`, {
      hint: 'get_snippet reads files the index holds; search or find_symbol gives valid paths',
    });
  }
  const stored = await index.fileTexts?.get(rel);
  if (stored !== undefined) {
    return linesOf(rel, record.language, stored, startLine, endLine);
  }
  let text: string;
  let handle: FileHandle | undefined;
  try {
    // A directory on the way may be a symlink; the real path must stay inside the root.
    const realRoot = realpathSync(root);
    const real = realpathSync(abs);
    resolveInsideRoot(realRoot, path.relative(realRoot, real));
    handle = await open(abs, OPEN_FLAGS);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new CodesiftError('INVALID_ARGUMENT', `${rel} is not a regular file`, {
        hint: 'get_snippet serves regular files only; re-run `codesift index` if it changed',
      });
    }
    // Another size is another content, told without reading a file that may be huge.
    const bytes = stat.size === record.size ? await handle.readFile() : undefined;
    if (bytes === undefined || sha256Hex(bytes) !== record.hash) {
      return staleSnippet(rel, record.language, startLine, endLine);
    }
    text = redactSecrets(bytes.toString('utf8')).text;
  } catch (err) {
    if (err instanceof CodesiftError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'ELOOP') {
      throw new CodesiftError('INVALID_ARGUMENT', `${rel} is a symbolic link`, {
        hint: 'get_snippet serves regular files only, never through a link; re-run `codesift index` if it changed',
      });
    }
    if (code === 'ENOENT') {
      throw new CodesiftError('INVALID_ARGUMENT', `file not found: ${rel} (under ${root})`, {
        hint: 'the file may have been deleted or moved since indexing; re-run `codesift index`',
      });
    }
    if (code === 'EISDIR') throw new CodesiftError('INVALID_ARGUMENT', `${rel} is a directory`);
    throw new CodesiftError('UNREADABLE', `cannot read ${rel}: ${errorMessage(err)}`, {
      cause: err,
    });
  } finally {
    await handle?.close().catch(() => undefined);
  }
  return linesOf(rel, record.language, text, startLine, endLine);
}

function linesOf(
  rel: string,
  language: string,
  text: string,
  startLine: number,
  endLine: number,
): Snippet {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const n = lines.length;
  const start = Math.min(Math.max(1, Math.floor(startLine)), n);
  let end = Math.min(Math.max(start, Math.floor(endLine)), n);
  end = Math.min(end, start + MAX_SNIPPET_LINES - 1);
  return {
    path: rel,
    startLine: start,
    endLine: end,
    language,
    text: lines.slice(start - 1, end).join('\n'),
  };
}

/** What a file that changed since indexing gives: its range, and no text. */
function staleSnippet(rel: string, language: string, startLine: number, endLine: number): Snippet {
  const start = Math.max(1, Math.floor(startLine));
  const end = Math.max(start, Math.floor(endLine));
  return { path: rel, startLine: start, endLine: end, language, text: '', stale: true };
}
