import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { ANALYZER_VERSION } from '@codesift/analysis';
import { CONTEXT_CACHE_FILE, CONTEXT_PROMPT_VERSION, type ContextSummary } from '@codesift/context';
import { CodesiftError } from '@codesift/core';
import type { LlmConfig } from '@codesift/llm';
import type { Embedder } from '@codesift/models';
import { type IndexProgress, indexRepository, refreshHistory } from '@codesift/pipeline';
import { type LocalIndex, openHistoryFile, SCHEMA_VERSION } from '@codesift/stores';

/**
 * Per-commit checkouts and their indexes, made in a cache directory and
 * reused across runs:
 *
 *   <cache>/checkouts/<owner>+<name>@<commit>/        the tree (git archive, never a clone)
 *   <cache>/indexes/<owner>+<name>@<commit>/<key>/    index.db + complete.json
 *
 * `<key>` names the embedder and the index schema and analyzer versions, so an
 * index built by another model or another codesift is never reused by mistake.
 * An index with LLM contexts adds the chat model and prompt version to its key
 * (see llmContextKey), so it sits beside the pattern-context index of the same
 * commit and neither replaces the other.
 */

/** Finds each repository's git directory from --git-dir pairs and a --mirrors directory. */
export class GitDirs {
  constructor(
    private readonly explicit: ReadonlyMap<string, string>,
    private readonly mirrors?: string,
  ) {}

  /** Parses `owner/name=<path>` arguments. */
  static fromArgs(pairs: readonly string[], mirrors?: string): GitDirs {
    const map = new Map<string, string>();
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      const repo = eq > 0 ? pair.slice(0, eq) : '';
      if (!/^[^/\s=]+\/[^/\s=]+$/.test(repo) || eq === pair.length - 1) {
        throw new CodesiftError(
          'INVALID_ARGUMENT',
          `--git-dir takes owner/name=<path>, got '${pair}'`,
        );
      }
      map.set(repo, path.resolve(pair.slice(eq + 1)));
    }
    return new GitDirs(map, mirrors === undefined ? undefined : path.resolve(mirrors));
  }

  /** The git directory for `owner/name`; throws with a hint when there is none. */
  resolve(repo: string): string {
    const candidates: string[] = [];
    const explicit = this.explicit.get(repo);
    if (explicit) candidates.push(explicit, path.join(explicit, '.git'));
    if (this.mirrors) {
      const base = path.join(this.mirrors, repo.replace('/', '+'));
      candidates.push(path.join(base, 'repo'), base, path.join(base, '.git'));
    }
    for (const c of candidates) if (isGitDir(c)) return c;
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      candidates.length === 0
        ? `no git directory for ${repo}`
        : `no git directory for ${repo} (looked in ${candidates.join(', ')})`,
      { hint: `pass --git-dir ${repo}=<path to a clone or bare mirror>, or --mirrors <dir>` },
    );
  }
}

/** A git directory, bare or `.git`: it has HEAD and objects. */
export function isGitDir(dir: string): boolean {
  return existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects'));
}

function git(gitDir: string, args: string[]): string {
  const r = spawnSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' });
  if (r.error) {
    throw new CodesiftError('INTERNAL', `git could not be run: ${r.error.message}`, {
      hint: 'install git; eval checks out commits with git archive',
    });
  }
  if (r.status !== 0) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `git ${args.join(' ')} failed in ${gitDir}: ${r.stderr.trim()}`,
    );
  }
  return r.stdout.trim();
}

/** Full commit id and committer time (epoch seconds); throws when the commit is missing. */
export function commitInfo(gitDir: string, commit: string): { sha: string; time: number } {
  let out: string;
  try {
    out = git(gitDir, ['log', '-1', '--format=%H %ct', `${commit}^{commit}`, '--']);
  } catch (err) {
    throw new CodesiftError('INVALID_ARGUMENT', `commit ${commit} is not in ${gitDir}`, {
      hint: 'fetch the commit into that repository, or point --git-dir at a fuller clone',
      cause: err,
    });
  }
  const [sha, time] = out.split(' ');
  return { sha: sha!, time: Number(time) };
}

export function repoSlug(repo: string): string {
  return repo.replace('/', '+');
}

export function checkoutDir(cacheDir: string, repo: string, commit: string): string {
  return path.join(cacheDir, 'checkouts', `${repoSlug(repo)}@${commit}`);
}

/**
 * Extracts `commit` into the cache with `git archive | tar -x` unless it is
 * there already. Extraction goes to a temporary directory renamed into place,
 * so an interrupted run never leaves a half tree that looks complete.
 */
export async function ensureCheckout(
  cacheDir: string,
  repo: string,
  commit: string,
  gitDir: string,
): Promise<{ dir: string; created: boolean }> {
  const dir = checkoutDir(cacheDir, repo, commit);
  if (existsSync(dir)) return { dir, created: false };
  mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    await archiveInto(gitDir, commit, tmp);
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return { dir, created: true };
}

function archiveInto(gitDir: string, commit: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['--git-dir', gitDir, 'archive', '--format=tar', commit], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tar = spawn('tar', ['-x', '-C', dest], { stdio: ['pipe', 'ignore', 'pipe'] });
    archive.stdout.pipe(tar.stdin);
    let errors = '';
    archive.stderr.on('data', (d) => {
      errors += d;
    });
    tar.stderr.on('data', (d) => {
      errors += d;
    });
    let pending = 2;
    let failed: string | null = null;
    const done = (what: string) => (code: number | null) => {
      if (code !== 0 && !failed) failed = `${what} exited with ${code}`;
      if (--pending === 0) {
        if (failed) {
          reject(
            new CodesiftError(
              'INTERNAL',
              `checking out ${commit} from ${gitDir} failed: ${failed}: ${errors.trim()}`,
            ),
          );
        } else resolve();
      }
    };
    archive.on('error', reject);
    tar.on('error', reject);
    archive.on('close', done('git archive'));
    tar.on('close', done('tar'));
  });
}

/**
 * Cache key of an index: embedder plus the versions that make an index
 * incompatible, plus the context key for an index with LLM contexts.
 */
export function indexKey(embedderName: string | null, contextKey?: string): string {
  const model = safeName(embedderName ?? 'keyword-only');
  const context = contextKey === undefined ? '' : `-${safeName(contextKey)}`;
  return `${model}${context}-schema${SCHEMA_VERSION}-analyzer${ANALYZER_VERSION}`;
}

/**
 * What makes LLM contexts differ: the chat model and the prompt version (the
 * server's address does not: the same model answers alike anywhere).
 */
export function llmContextKey(llm: Pick<LlmConfig, 'model'>): string {
  return `llmctx-${llm.model}-${CONTEXT_PROMPT_VERSION}`;
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/**
 * Fallbacks that say the model was not reached (rather than that it answered
 * something unusable). An index built through them is not reused as is: the
 * next run rebuilds it, asking only for the chunks the context cache lacks.
 */
const UNREACHED: readonly string[] = ['timeout', 'error', 'breaker-open', 'model-missing'];

export function modelWasMissed(context: ContextSummary | undefined): boolean {
  return UNREACHED.some(
    (f) => (context?.fallbacks[f as keyof ContextSummary['fallbacks']] ?? 0) > 0,
  );
}

export function indexDir(cacheDir: string, repo: string, commit: string, key: string): string {
  return path.join(cacheDir, 'indexes', `${repoSlug(repo)}@${commit}`, key);
}

const MARKER = 'complete.json';

export interface Marker {
  repo: string;
  commit: string;
  commitTime: number;
  key: string;
  files: number;
  chunks: number;
  seconds: number;
  /** How the run that completed the index made its contexts. */
  context?: ContextSummary;
}

export interface EnsureIndexResult {
  indexPath: string;
  /** 'cached': reused as is; 'seeded': copied from a nearby commit's index and updated; 'built': from scratch. */
  status: 'cached' | 'seeded' | 'built';
  /** Commit whose index seeded this one. */
  seededFrom?: string;
  filesIndexed: number;
  seconds: number;
  /** This run's context summary; for a cached index, the one recorded when it was completed. */
  context?: ContextSummary;
}

/**
 * Makes sure the checkout of `commit` has a complete index under `key`.
 *
 * An index for a new commit starts as a copy of the complete index of the
 * same repository and key whose commit is nearest in time, and is then
 * updated incrementally: files with the same content hash are kept, so only
 * the files that differ between the two commits are chunked and embedded.
 * Chunk ids are deterministic and whole files are replaced, so the result
 * holds the same chunks and vectors as an index built from scratch.
 */
export async function ensureIndex(options: {
  cacheDir: string;
  repo: string;
  commit: string;
  commitTime: number;
  checkout: string;
  embedder: Embedder | undefined;
  /** Build the index with LLM contexts from this model (its own key) instead of pattern ones. */
  llm?: LlmConfig;
  /**
   * The repository's git directory: the index stores the history reachable
   * from `commit` (the search's history prior), as an index of a clone
   * would. Without it the index has no history.
   */
  gitDir?: string;
  onProgress?: (p: IndexProgress) => void;
}): Promise<EnsureIndexResult> {
  const history = options.gitDir ? { gitDir: options.gitDir, rev: options.commit } : undefined;
  const key = indexKey(
    options.embedder?.name ?? null,
    options.llm ? llmContextKey(options.llm) : undefined,
  );
  const dir = indexDir(options.cacheDir, options.repo, options.commit, key);
  const indexPath = path.join(dir, 'index.db');
  const markerFile = path.join(dir, MARKER);
  const previous = existsSync(indexPath) ? readMarker(markerFile) : undefined;
  if (previous && !modelWasMissed(previous.context)) {
    const cached: EnsureIndexResult = { indexPath, status: 'cached', filesIndexed: 0, seconds: 0 };
    if (previous.context) cached.context = previous.context;
    // An index cached before it kept a history gets one (once: the head is recorded).
    if (history) await withHistoryFile(indexPath, (index) => refreshHistory(index, history));
    return cached;
  }
  let seededFrom: string | undefined;
  if (!existsSync(indexPath)) {
    const seed = nearestCompleteIndex(options.cacheDir, options.repo, key, options.commitTime);
    mkdirSync(dir, { recursive: true });
    if (seed) {
      // The context cache travels with the index: the seed's answers serve this commit's chunks.
      for (const file of ['index.db', 'index.db-wal', CONTEXT_CACHE_FILE]) {
        const from = path.join(seed.dir, file);
        if (existsSync(from)) copyFileSync(from, path.join(dir, file));
      }
      seededFrom = seed.commit;
    }
  }
  const summary = await indexRepository({
    root: options.checkout,
    indexPath,
    vectors: options.embedder !== undefined,
    embedder: options.embedder,
    ...(options.llm ? { llm: options.llm } : {}),
    // Unchanged files would keep the pattern contexts the model missed: start
    // over, the context cache (kept by a rebuild) answering what it holds.
    rebuild: previous !== undefined,
    // A checkout has no .git: the history comes from the git directory, or not at all
    // (never from a repository the cache directory happens to lie in).
    history: history ?? false,
    onProgress: options.onProgress,
  });
  const marker: Marker = {
    repo: options.repo,
    commit: options.commit,
    commitTime: options.commitTime,
    key,
    files: summary.totals.files,
    chunks: summary.totals.chunks,
    seconds: summary.seconds,
  };
  if (summary.context) marker.context = summary.context;
  writeFileSync(markerFile, `${JSON.stringify(marker, null, 2)}\n`);
  const result: EnsureIndexResult = {
    indexPath,
    status: seededFrom ? 'seeded' : 'built',
    filesIndexed: summary.filesIndexed,
    seconds: summary.seconds,
  };
  if (seededFrom) result.seededFrom = seededFrom;
  if (summary.context) result.context = summary.context;
  return result;
}

async function withHistoryFile<T>(
  indexPath: string,
  fn: (index: Pick<LocalIndex, 'history'>) => Promise<T>,
): Promise<T> {
  const history = openHistoryFile(indexPath);
  try {
    return await fn({ history });
  } finally {
    history.close();
  }
}

export function readMarker(file: string): Marker | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
}

function nearestCompleteIndex(
  cacheDir: string,
  repo: string,
  key: string,
  commitTime: number,
): { dir: string; commit: string } | undefined {
  const base = path.join(cacheDir, 'indexes');
  if (!existsSync(base)) return undefined;
  const prefix = `${repoSlug(repo)}@`;
  let best: { dir: string; commit: string; distance: number } | undefined;
  for (const entry of readdirSync(base)) {
    if (!entry.startsWith(prefix)) continue;
    const dir = path.join(base, entry, key);
    if (!existsSync(path.join(dir, 'index.db'))) continue;
    const marker = readMarker(path.join(dir, MARKER));
    if (!marker || modelWasMissed(marker.context)) continue;
    const distance = Math.abs(marker.commitTime - commitTime);
    if (!best || distance < best.distance) best = { dir, commit: marker.commit, distance };
  }
  return best && { dir: best.dir, commit: best.commit };
}
