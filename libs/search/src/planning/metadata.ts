/**
 * Repository metadata: issue and PR templates, CI workflows, funding,
 * contribution and conduct files, bot settings. They hold the words of bug
 * reports (a template is the report's skeleton) and of build failures, so
 * they outrank the code a question is about on keyword overlap alone. For a
 * question that does not name them, the planner multiplies their score by
 * METADATA_MULTIPLIER (with doc demotion on); a question naming them
 * (`workflow`, `template`, `.github/...`) leaves them alone.
 */
import type { ParsedQuery } from '@codesift/query';

export const METADATA_MULTIPLIER = 0.2;

/** Directories of repository metadata, at the root of a repository (or of one of an index's repositories). */
const METADATA_DIR =
  /(?:^|\/)(?:\.github|\.gitlab|\.gitea|\.circleci|\.buildkite|\.azure-pipelines|\.devcontainer)\//i;
/** Metadata files by name, anywhere. */
const METADATA_FILE =
  /(?:^|\/)(?:funding\.ya?ml|contributing(?:\.\w+)?|code_of_conduct(?:\.\w+)?|security\.md|support\.md|governance\.md|codeowners|\.travis\.ya?ml|appveyor\.ya?ml|azure-pipelines\.ya?ml|\.gitlab-ci\.ya?ml|\.cirrus\.ya?ml|\.pre-commit-config\.ya?ml|\.mergify\.ya?ml|codecov\.ya?ml|\.codecov\.ya?ml|\.coveralls\.ya?ml|renovate\.json5?|dependabot\.ya?ml|issue_template(?:\.md)?|pull_request_template(?:\.md)?)$/i;

/** Words that ask about the metadata itself (lowercase). */
export const METADATA_WORDS: ReadonlySet<string> = new Set([
  'ci',
  'workflow',
  'workflows',
  'actions',
  'github',
  'gitlab',
  'template',
  'templates',
  'funding',
  'sponsor',
  'sponsors',
  'contributing',
  'contributor',
  'contributors',
  'conduct',
  'codeowners',
  'dependabot',
  'renovate',
  'travis',
  'appveyor',
  'circleci',
  'codecov',
  'precommit',
  'pre-commit',
]);

export function isMetadataPath(path: string): boolean {
  return METADATA_DIR.test(path) || METADATA_FILE.test(path);
}

/** The word or path of the query that names repository metadata, or null. */
export function namesMetadata(parsed: ParsedQuery): string | null {
  for (const t of parsed.terms) {
    if (t.trace !== undefined) continue;
    if (t.shape === 'path' && isMetadataPath(t.value)) return t.value;
    // Inside a module path or host (`github.com/pkg/errors`) the word names a
    // place code comes from, not the repository's own metadata.
    if (/[./]/.test(t.value)) continue;
    for (const w of t.value.toLowerCase().split(/[^\p{L}\p{N}-]+/u)) {
      if (METADATA_WORDS.has(w)) return w;
    }
  }
  return null;
}
