import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '@codesift/core';
import { IGNORE_FILE_NAMES, IgnoreRules } from './ignore-rules.js';
import { type ClassifyOptions, directorySkip, fileSkip, fileVerdict } from './path-verdict.js';
import { VCS_DIRS } from './skip-rules.js';

export interface PathFilterOptions {
  /** The directory the scan walks. */
  root: string;
  /** Absolute directories left out entirely, as ScanOptions.excludeDirs (the index directory). */
  excludeDirs?: string[];
  /** As ScanOptions.extraIgnore. */
  extraIgnore?: string[];
  includeVendored?: boolean;
  includeSecrets?: boolean;
}

/** What a path is, when the caller knows; 'unknown' is left out only if both readings are. */
export type PathKind = 'file' | 'directory' | 'unknown';

/**
 * The scan's rules one path at a time, for a file watcher: whether a change
 * at this path could matter to the index. It applies the same ignore files
 * (read lazily, per directory on the path, and cached), extra patterns,
 * version-control and index directories and built-in name lists as the walk
 * (path-verdict.ts), but not what needs the file itself (size, symlink
 * targets, content): a path it keeps may still be skipped by the scan.
 * After an ignore file changes, call reset().
 */
export class PathFilter {
  private readonly root: string;
  private readonly exclude: string[];
  private readonly classify: ClassifyOptions;
  private readonly base: IgnoreRules;
  private rules = new Map<string, IgnoreRules>();
  private dirs = new Map<string, boolean>();

  constructor(options: PathFilterOptions) {
    this.root = path.resolve(options.root);
    // As in the walk, an excluded directory is one the tree holds: an index
    // kept beside the root (`--index ../index.db`) excludes nothing in it.
    this.exclude = (options.excludeDirs ?? [])
      .map((d) => path.resolve(d))
      .filter((d) => d !== this.root && isInside(this.root, d));
    this.classify = {
      includeVendored: options.includeVendored ?? false,
      includeSecrets: options.includeSecrets ?? false,
    };
    this.base = IgnoreRules.root(options.extraIgnore ?? []);
  }

  /** True for .gitignore and .codesiftignore: a change to one changes what is indexed. */
  static isIgnoreFile(rel: string): boolean {
    return IGNORE_FILE_NAMES.includes(rel.slice(rel.lastIndexOf('/') + 1));
  }

  /** The root-relative POSIX path of an absolute path, or undefined outside the root. */
  relative(abs: string): string | undefined {
    const resolved = path.resolve(abs);
    if (!isInside(this.root, resolved)) return undefined;
    return path.relative(this.root, resolved).split(path.sep).join('/');
  }

  /** Whether the scan leaves `rel` (root-relative POSIX) out by its rules and name. */
  ignores(rel: string, kind: PathKind): boolean {
    if (rel === '') return false;
    const parts = rel.split('/');
    if (parts.some((p) => VCS_DIRS.has(p))) return true;
    const abs = path.join(this.root, ...parts);
    if (this.exclude.some((d) => isInside(d, abs))) return true;
    const parent = parts.slice(0, -1).join('/');
    if (parent !== '' && this.directoryIgnored(parent)) return true;
    const asDirectory = () => this.directoryIgnored(rel);
    const asFile = () =>
      fileSkip(this.rulesFor(parent), rel, parts[parts.length - 1]!, this.classify) !== undefined;
    if (kind === 'directory') return asDirectory();
    if (kind === 'file') return asFile();
    return asDirectory() && asFile();
  }

  /** Whether a negation in an ignore file names the file `rel` itself (see fileVerdict). */
  explicit(rel: string): boolean {
    const cut = rel.lastIndexOf('/');
    const parent = cut === -1 ? '' : rel.slice(0, cut);
    return fileVerdict(this.rulesFor(parent), rel, rel.slice(cut + 1), this.classify).explicit;
  }

  /** Forgets the ignore files read so far. */
  reset(): void {
    this.rules = new Map();
    this.dirs = new Map();
  }

  private directoryIgnored(rel: string): boolean {
    const known = this.dirs.get(rel);
    if (known !== undefined) return known;
    const cut = rel.lastIndexOf('/');
    const parent = cut === -1 ? '' : rel.slice(0, cut);
    const ignored =
      (parent !== '' && this.directoryIgnored(parent)) ||
      directorySkip(this.rulesFor(parent), rel, rel.slice(cut + 1), this.classify) !== undefined;
    this.dirs.set(rel, ignored);
    return ignored;
  }

  /** The rules in force inside directory `rel` ('' for the root), its own ignore files included. */
  private rulesFor(rel: string): IgnoreRules {
    const known = this.rules.get(rel);
    if (known) return known;
    const cut = rel.lastIndexOf('/');
    const outer = rel === '' ? this.base : this.rulesFor(cut === -1 ? '' : rel.slice(0, cut));
    const dir = path.join(this.root, ...(rel === '' ? [] : rel.split('/')));
    const contents: string[] = [];
    for (const name of IGNORE_FILE_NAMES) {
      const file = path.join(dir, name);
      try {
        // Regular files only, as the walk: a linked ignore file could point outside the root.
        if (lstatSync(file).isFile()) contents.push(readFileSync(file, 'utf8'));
      } catch {
        // Absent or unreadable: no rules from it (the scan reports an unreadable one).
      }
    }
    const rules = contents.length > 0 ? outer.withFile(rel, contents) : outer;
    this.rules.set(rel, rules);
    return rules;
  }
}
