/**
 * Focus scoring: a question about the implementation demotes test files, a
 * question about tests demotes everything else, by multiplying the score
 * by the out-of-focus multiplier (default 0.5, the codelibrarian choice:
 * an out-of-focus result must score twice as high to stay ahead, so a
 * wrong guess demotes, never hides). An explicit focus in the request
 * overrides inference; 'all' changes nothing. Test files are recognised by
 * path and language conventions (@codesift/analysis isTestPath).
 *
 * Prose documentation (.md, .rst, .txt, .adoc) restates a feature in the
 * words users use, so it outranks the code on keyword overlap alone. For
 * an implementation question that does not ask about documentation, prose
 * files are multiplied by the doc multiplier (DEFAULT_DOC_MULTIPLIER);
 * a question naming docs ("readme", "documentation", "changelog", ...)
 * or a test focus leaves them alone. Repository metadata (metadata.ts) is
 * demoted the same way, under the same switch, for any question that does
 * not name it. Changelogs and the code of documentation and example trees
 * are documentation too (documentation.ts): a changelog is demoted for any
 * question that does not name one; the trees' code is out of focus like a
 * test (the out-of-focus multiplier) unless the question asks for docs or
 * examples. Build manifests, configuration and data files (data-files.ts)
 * get the prose multiplier for an implementation question that does not
 * name their kind.
 */
import { isTestPath } from '@codesift/analysis';
import { type Focus, inferFocus, type ParsedQuery } from '@codesift/query';
import { isDataPath, namesDataFile } from './data-files.js';
import {
  asksForDeclarations,
  asksForExamples,
  CHANGELOG_MULTIPLIER,
  inDocTree,
  isChangelogPath,
  isDeclarationPath,
  isVendoredCopy,
  namesChangelog,
  namesFileKind,
} from './documentation.js';
import { isMetadataPath, METADATA_MULTIPLIER, namesMetadata } from './metadata.js';
import type { QueryPlan } from './types.js';

export const DEFAULT_FOCUS_MULTIPLIER = 0.5;
/**
 * Prose is out of focus for an implementation question the way a test is,
 * so it gets the same multiplier: it must score twice as high to stay
 * ahead, demoted, never hidden. Swept on ten sets (docs/EVALUATION.md,
 * 2026-11-26): 0.7 -> 0.5 raised or kept every set; 0.3 scored higher
 * still, but no set has a question answered by prose, so none could show
 * what hiding docs costs.
 */
export const DEFAULT_DOC_MULTIPLIER = 0.5;

/** Extensions of prose documentation. */
export const PROSE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.md',
  '.markdown',
  '.mdx',
  '.rst',
  '.txt',
  '.adoc',
  '.asciidoc',
  '.rdoc',
]);

/** Words that ask for documentation itself (lowercase). */
export const DOC_WORDS: ReadonlySet<string> = new Set([
  'doc',
  'docs',
  'documentation',
  'documented',
  'document',
  'readme',
  'changelog',
  'changes',
  'history',
  'guide',
  'tutorial',
  'docstring',
  'rst',
  'markdown',
  'manual',
]);

export function isProsePath(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  return dot > 0 && PROSE_EXTENSIONS.has(base.slice(dot));
}

/**
 * The word or prose path by which the query asks for documentation; in a
 * long pasted report only its lead line asks (namesFileKind), as for
 * changelogs, examples and data files: "the docs say" in a report's body
 * describes what the reporter read, not where to look.
 */
function asksForDocs(parsed: ParsedQuery, reports: boolean): string | null {
  return namesFileKind(parsed, reports, isProsePath, DOC_WORDS);
}

export interface FocusSettings {
  scoring: boolean;
  multiplier: number;
  reports: boolean;
  /** The doc multiplier when doc demotion is on, else 1. */
  docMultiplier: number;
  /** Test words naming the repository's own code (repo-test-words.ts): no focus cue. */
  ownTestWords?: ReadonlySet<string>;
}

export function planFocus(
  parsed: ParsedQuery,
  explicit: Focus | undefined,
  settings: FocusSettings,
): QueryPlan['focus'] {
  const inferred =
    explicit === undefined
      ? inferFocus(parsed, {
          reports: settings.reports,
          ...(settings.ownTestWords ? { ownTestWords: settings.ownTestWords } : {}),
        })
      : null;
  const focus = explicit ?? inferred!.focus;
  let docMultiplier = 1;
  let docTreeMultiplier = 1;
  let declarationMultiplier = 1;
  let dataMultiplier = 1;
  let reason = inferred ? inferred.reason : `set by the request (${explicit})`;
  if (settings.scoring && focus === 'implementation' && settings.docMultiplier !== 1) {
    const docWord = asksForDocs(parsed, settings.reports);
    const exampleWord = asksForExamples(parsed, settings.reports);
    if (docWord === null) docMultiplier = settings.docMultiplier;
    else reason += `; asks for docs ("${docWord}"), prose not demoted`;
    // Example code calls the library the way tests do, so it is out of focus the same way.
    if (docWord === null && exampleWord === null) docTreeMultiplier = settings.multiplier;
    else if (exampleWord !== null) {
      reason += `; asks for examples ("${exampleWord}"), doc and example trees not demoted`;
    }
    // Declarations restate the API without its behaviour, as example code calls it.
    const typesWord = asksForDeclarations(parsed, settings.reports);
    if (docWord === null && typesWord === null) declarationMultiplier = settings.multiplier;
    else if (typesWord !== null)
      reason += `; asks about types ("${typesWord}"), declarations not demoted`;
    const dataWord = namesDataFile(parsed, settings.reports);
    if (dataWord === null) dataMultiplier = settings.docMultiplier;
    else reason += `; names a manifest or data file ("${dataWord}"), not demoted`;
  }
  let metadataMultiplier = 1;
  let changelogMultiplier = 1;
  if (settings.scoring && settings.docMultiplier !== 1) {
    const named = namesMetadata(parsed);
    if (named === null) metadataMultiplier = METADATA_MULTIPLIER;
    else reason += `; names repository metadata ("${named}"), not demoted`;
    const changelog = namesChangelog(parsed, settings.reports);
    if (changelog === null) changelogMultiplier = CHANGELOG_MULTIPLIER;
    else reason += `; names a changelog ("${changelog}"), not demoted`;
  }
  return {
    focus,
    source: explicit === undefined ? 'inferred' : 'request',
    reason,
    scoring: settings.scoring && focus !== 'all' && settings.multiplier !== 1,
    outOfFocusMultiplier: settings.multiplier,
    reports: settings.reports,
    docMultiplier,
    docTreeMultiplier,
    declarationMultiplier,
    dataMultiplier,
    metadataMultiplier,
    changelogMultiplier,
  };
}

/**
 * The documentation multiplier of one path. A changelog gets its own
 * multiplier instead of the prose one, and the trees' multiplier is for
 * their code only (prose there is prose), so no file is demoted twice for
 * one reason; metadata (CONTRIBUTING.md) is also prose, as before.
 */
function documentationMultiplier(focus: QueryPlan['focus'], path: string): number {
  const metadata = isMetadataPath(path) ? focus.metadataMultiplier : 1;
  if (isChangelogPath(path)) return metadata * focus.changelogMultiplier;
  if (isProsePath(path)) return metadata * focus.docMultiplier;
  // Metadata that is also data (a workflow's .yml) is demoted once, as metadata.
  if (isDataPath(path)) return metadata !== 1 ? metadata : focus.dataMultiplier;
  // A vendored library (`jquery-3.5.1.js`) is code the repository ships, not code it wrote: like an example's.
  if (inDocTree(path) || isVendoredCopy(path)) return metadata * focus.docTreeMultiplier;
  if (isDeclarationPath(path)) return metadata * focus.declarationMultiplier;
  return metadata;
}

/** The multiplier for one result: 1 in focus (or with scoring off), the plan's multipliers out of it. */
export function focusMultiplier(
  focus: QueryPlan['focus'],
  path: string,
  language?: string,
): number {
  const doc = documentationMultiplier(focus, path);
  if (!focus.scoring) return doc;
  const test = isTestPath(path, language);
  const inFocus = focus.focus === 'tests' ? test : !test;
  return (inFocus ? 1 : focus.outOfFocusMultiplier) * doc;
}
