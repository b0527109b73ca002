/**
 * Repositories in one index. A local index holds one tree, its paths
 * relative to the index's root. A cluster index may instead hold many
 * repositories: every path of repository `acme/api` is stored under the
 * prefix `acme/api/`, each repository records the directory it was scanned
 * from, and an index job names the one repository it updates, so it plans
 * (and deletes) within that prefix only. Search needs nothing new: a
 * repository is a path prefix, which every path filter already handles.
 *
 * An index is one or the other, never both. Mixing them would let an
 * unnamed tree's job plan the repositories' files as deleted (they are not
 * in its tree), or mix an unnamed tree's paths with a repository's.
 */
import { CodesiftError } from './errors.js';

/** Longest repository name, in characters. */
export const MAX_REPOSITORY_NAME = 200;

/** One segment of a name: letters, digits, `.`, `_`, `-` (and not `.` or `..`). */
const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Checks a repository name and returns it. A name is one or more segments
 * joined by `/` (`api`, `acme/api`, `github.com/acme/api`), so it reads as
 * the directory its files appear under.
 */
export function checkRepositoryName(name: string): string {
  const problem = repositoryNameProblem(name);
  if (problem !== null) {
    throw new CodesiftError('INVALID_ARGUMENT', `invalid repository name '${name}': ${problem}`, {
      hint: 'use letters, digits, ".", "_" and "-", in segments joined by "/" (e.g. acme/api)',
    });
  }
  return name;
}

function repositoryNameProblem(name: string): string | null {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_REPOSITORY_NAME)
    return `it is longer than ${MAX_REPOSITORY_NAME} characters`;
  for (const segment of name.split('/')) {
    if (segment === '') return 'it has an empty segment (a leading, trailing or doubled "/")';
    if (segment === '.' || segment === '..') return `it has a '${segment}' segment`;
    if (!SEGMENT.test(segment))
      return `'${segment}' has characters other than letters, digits, ".", "_", "-"`;
  }
  return null;
}

/** The prefix of every path of `repository` in the index. */
export function repositoryPrefix(repository: string): string {
  return `${repository}/`;
}

/** Where an index's paths come from: one root, or one root per repository. */
export interface IndexLayout {
  /** The one tree's directory; null when the index holds repositories (or nothing yet). */
  root: string | null;
  /** Repository name -> the directory it was scanned from; empty for a one-tree index. */
  repositories: Readonly<Record<string, string>>;
}

/**
 * The layout after a job for `root` (and `repository`, when it names one)
 * is recorded, or null when it is already recorded. Throws INVALID_ARGUMENT
 * when the job does not fit the index: an unnamed tree into an index of
 * repositories, or a repository into an index holding an unnamed tree
 * (`holdsFiles`: the index has files).
 */
export function placeRoot(
  layout: IndexLayout,
  holdsFiles: boolean,
  root: string,
  repository?: string,
): IndexLayout | null {
  const names = Object.keys(layout.repositories);
  if (repository === undefined || repository === '') {
    if (names.length > 0) {
      const shown = names.sort().slice(0, 5).join(', ');
      const more = names.length > 5 ? ` and ${names.length - 5} more` : '';
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `the index holds repositories (${shown}${more}), so an index job must name the repository it updates`,
        { hint: 'pass --repository <name> (gRPC StartIndex: repository)' },
      );
    }
    return layout.root === root ? null : { root, repositories: {} };
  }
  checkRepositoryName(repository);
  if (names.length === 0 && holdsFiles && layout.root !== null) {
    throw new CodesiftError(
      'INVALID_ARGUMENT',
      `the index holds one unnamed tree (${layout.root}), so repository '${repository}' cannot join it`,
      {
        hint: 'index repositories into a new (empty) index, or index this tree without --repository',
      },
    );
  }
  for (const other of names) {
    // `acme` and `acme/api` would share paths: one prefix may not hold another.
    if (
      other !== repository &&
      (other.startsWith(`${repository}/`) || repository.startsWith(`${other}/`))
    ) {
      throw new CodesiftError(
        'INVALID_ARGUMENT',
        `repository '${repository}' overlaps repository '${other}' in the index (one's paths would fall under the other's)`,
        { hint: 'choose a name that neither contains nor is contained in another repository name' },
      );
    }
  }
  if (layout.repositories[repository] === root && layout.root === null) return null;
  return { root: null, repositories: { ...layout.repositories, [repository]: root } };
}

/**
 * The repositories some of `removedPaths` belonged to: the ones to check
 * for emptiness after a removal (an emptied repository is forgotten).
 */
export function repositoriesOf(
  repositories: Readonly<Record<string, string>>,
  removedPaths: readonly string[],
): string[] {
  const out = new Set<string>();
  for (const p of removedPaths) {
    const hit = splitRepositoryPath(repositories, p);
    if (hit) out.add(hit.repository);
  }
  return [...out];
}

/** The layout without `names`, or null when none of them is recorded. */
export function forgetRepositories(
  layout: IndexLayout,
  names: readonly string[],
): IndexLayout | null {
  const kept = Object.entries(layout.repositories).filter(([n]) => !names.includes(n));
  if (kept.length === Object.keys(layout.repositories).length) return null;
  return { root: layout.root, repositories: Object.fromEntries(kept) };
}

/**
 * The repository an indexed path belongs to and the path inside it, or
 * null for a path of no recorded repository.
 */
export function splitRepositoryPath(
  repositories: Readonly<Record<string, string>>,
  indexPath: string,
): { repository: string; root: string; path: string } | null {
  // Names never nest (placeRoot refuses it), so at most one prefix matches.
  for (const [repository, root] of Object.entries(repositories)) {
    const prefix = repositoryPrefix(repository);
    if (indexPath.startsWith(prefix)) {
      return { repository, root, path: indexPath.slice(prefix.length) };
    }
  }
  return null;
}
