/**
 * Build manifests, configuration and data files: project files (`.csproj`,
 * `.nuspec`, `.props`), package metadata and lock files, JSON/YAML/TOML/INI
 * settings, ignore files, licences. They repeat a project's names (every
 * module in a solution file, every package in a lock file, release notes
 * inside a `.nuspec`), so on keyword overlap alone they outrank the code a
 * question is about, and they hold no implementation. Measured on git-history
 * sets of repositories the planner was never tuned on (docs/EVALUATION.md,
 * 2026-11-26): on a C# one, such a file ranked above the first relevant
 * source file in the top 5 of 23 queries out of 80.
 *
 * For an implementation question that does not name such a file (its
 * extension, `package.json`, "lock file", "license"), the planner multiplies
 * their score by the prose multiplier: demoted like docs, never hidden.
 * Recognised by the conventions of the file formats, never by repository.
 */
import type { ParsedQuery } from '@codesift/query';
import { namesFileKind } from './documentation.js';

/** Extensions (lowercase, with the dot) of build manifests, configuration and data. */
const DATA_EXTENSIONS: ReadonlySet<string> = new Set([
  // .NET and Xcode project files, NuGet and CocoaPods manifests
  '.csproj',
  '.vbproj',
  '.fsproj',
  '.vcxproj',
  '.filters',
  '.sln',
  '.slnx',
  '.nuspec',
  '.props',
  '.targets',
  '.resx',
  // gettext translation catalogs: every message of the program, in each language
  '.po',
  '.pot',
  '.ruleset',
  '.pbxproj',
  '.xcscheme',
  '.xcconfig',
  '.xcworkspacedata',
  '.plist',
  '.entitlements',
  '.podspec',
  // configuration and data formats
  '.json',
  '.jsonc',
  '.json5',
  '.yaml',
  '.yml',
  '.toml',
  '.ini',
  '.cfg',
  '.conf',
  '.config',
  '.properties',
  '.xml',
  '.csv',
  '.tsv',
  '.svg',
  '.env',
  // lock files and checksums
  '.lock',
  '.sum',
]);

/** Whole file names (lowercase) of ignore files, tool settings and licences. */
const DATA_FILE_NAMES: ReadonlySet<string> = new Set([
  '.gitignore',
  '.gitattributes',
  '.gitmodules',
  '.git-blame-ignore-revs',
  '.npmignore',
  '.dockerignore',
  '.editorconfig',
  '.npmrc',
  '.nvmrc',
  '.yarnrc',
  '.babelrc',
  '.eslintrc',
  '.eslintignore',
  '.prettierrc',
  '.prettierignore',
  '.mailmap',
  'license',
  'licence',
  'copying',
  'notice',
  'authors',
  'go.mod',
  'go.sum',
  'package-lock.json',
]);

/** File name stems (lowercase, before the first dot) of licences and notices in any format. */
const DATA_STEMS: ReadonlySet<string> = new Set(['license', 'licence', 'copying', 'notice']);

/**
 * Words that name such files (lowercase): their formats and kinds. Not the
 * extensions that are also everyday words of code questions ("config",
 * "lock", "targets", "properties", "filters"): a question about locking is
 * about code.
 */
const DATA_WORDS: ReadonlySet<string> = new Set([
  'json',
  'jsonc',
  'json5',
  'yaml',
  'yml',
  'toml',
  'ini',
  'cfg',
  'xml',
  'csv',
  'tsv',
  'svg',
  'plist',
  'csproj',
  'vbproj',
  'fsproj',
  'vcxproj',
  'sln',
  'slnx',
  'nuspec',
  'resx',
  'pbxproj',
  'xcconfig',
  'xcscheme',
  'podspec',
  'gitignore',
  'gitattributes',
  'gitmodules',
  'editorconfig',
  'dockerignore',
  'npmignore',
  'npmrc',
  'eslintrc',
  'babelrc',
  'prettierrc',
  'lockfile',
  'license',
  'licence',
  'licenses',
  'licensing',
  'copyright',
  'manifest',
  'nuget',
  'msbuild',
]);

export function isDataPath(path: string): boolean {
  const base = path.slice(path.replaceAll('\\', '/').lastIndexOf('/') + 1).toLowerCase();
  if (DATA_FILE_NAMES.has(base)) return true;
  const firstDot = base.indexOf('.');
  if (firstDot > 0 && DATA_STEMS.has(base.slice(0, firstDot))) return true;
  const dot = base.lastIndexOf('.');
  return dot > 0 && DATA_EXTENSIONS.has(base.slice(dot));
}

/**
 * The path or word of the query that names a manifest, configuration or
 * data file, or null. With `reports`, a long report counts its lead only,
 * as for changelogs and examples: a body quoting `config.json` or a YAML
 * snippet is describing the bug, not asking for the file.
 */
export function namesDataFile(parsed: ParsedQuery, reports = true): string | null {
  return namesFileKind(parsed, reports, isDataPath, DATA_WORDS);
}
