/**
 * Per-repository search settings, read once when the engine opens, from
 * the first of these files that exists under the indexed root:
 *
 *   <root>/.codesift/config.json
 *   <root>/.codesift.json
 *
 * Shape (every key optional; other top-level keys are left to other tools):
 *
 *   {
 *     "search": {
 *       "synonyms": { "search": ["lookup", "grep"], "index": [] },
 *       "synonymsMode": "extend",      // or "replace": the table above replaces a key's defaults
 *       "fusion": "linear",            // "rrf" | "linear" | "adaptive"
 *       "vectorWeight": 0.7,           // linear fusion, 0..1
 *       "focusMultiplier": 0.5,        // score multiplier out of focus, 0..1
 *       "expansion": true,             // feature defaults; a request can still override each
 *       "anchors": true,
 *       "focusScoring": true,
 *       "definitions": true,
 *       "codeSpans": true,             // a short query's `word` in backticks names a definition
 *       "installedFrames": true,       // a trace's innermost frame in an installed copy names the repository's file
 *       "forwarders": true,            // a short wrapper calling a longer same-named definition yields it the boost
 *       "boilerplate": true,           // cut environment reports / template text from queries
 *       "reportFocus": true,           // focus inference ignores pasted material
 *       "docDemotion": true,           // prose docs x docMultiplier and doc/example trees x focusMultiplier for implementation questions (manifests and data files x docMultiplier too), repository metadata and changelogs x 0.2
 *       "docMultiplier": 0.5,
 *       "bridge": false,               // offline vocabulary bridge for natural-language queries
 *       "minEvidence": true,           // no results when none of the query's own terms is indexed
 *       "fileCoverage": true,          // file results of a short query also by the query words each file covers
 *       "definedNames": false,         // word coverage: a word naming one of the file's classes or functions counts twice
 *       "nameOrder": true,             // the chunk list: a file's chunks also by the query words their function names hold
 *       "vectorContrast": false,       // linear fusion: vector weight x how peaked its list is against the index's noise
 *       "history": true,               // the files of the commits whose messages match the query join the ranking
 *       "fileScore": "best",           // or "decayed" (with file results)
 *       "fileDecay": 0.5
 *     }
 *   }
 *
 * Synonym keys and values are single words, normalised by the analyzer; an
 * empty list removes a default expansion that hurts the repository. A file
 * that is not valid JSON or has a wrong value is an error naming the file:
 * silently ignoring it would leave a user wondering why a setting does
 * nothing.
 */
import { CodesiftError, readConfigFile } from '@codesift/core';
import {
  DEFAULT_SYNONYMS,
  mergeSynonymTables,
  type SynonymMergeMode,
  type SynonymTable,
} from '@codesift/query';
import { DEFAULT_PLANNER_CONFIG } from './planning/plan-query.js';
import { PLANNER_SWITCHES, type PlannerSwitches } from './planning/switches.js';
import type { FileScoreMode, FusionMode, PlannerConfig } from './planning/types.js';

/** The `search` section; the planner's switches (see PlannerSwitches) are feature defaults. */
export interface SearchConfig extends Partial<PlannerSwitches> {
  synonyms?: SynonymTable;
  synonymsMode?: SynonymMergeMode;
  fusion?: FusionMode;
  vectorWeight?: number;
  focusMultiplier?: number;
  docMultiplier?: number;
  fileScore?: FileScoreMode;
  fileDecay?: number;
}

const UNIT_KEYS = ['vectorWeight', 'focusMultiplier', 'docMultiplier', 'fileDecay'] as const;

/** Reads and validates the `search` section of a config file. */
export function readSearchConfig(file: string): SearchConfig {
  const section = readConfigFile(file).search;
  if (section === undefined) return {};
  return validateSearchConfig(section, file);
}

export function validateSearchConfig(section: unknown, where: string): SearchConfig {
  if (!isObject(section)) throw bad(where, '"search" must be an object');
  const out: SearchConfig = {};
  const s = section;
  if (s.synonyms !== undefined) {
    if (!isObject(s.synonyms)) throw bad(where, '"search.synonyms" must map words to lists');
    for (const [k, v] of Object.entries(s.synonyms)) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
        throw bad(where, `"search.synonyms.${k}" must be a list of strings`);
      }
    }
    out.synonyms = s.synonyms as SynonymTable;
  }
  if (s.synonymsMode !== undefined) {
    if (s.synonymsMode !== 'extend' && s.synonymsMode !== 'replace') {
      throw bad(where, '"search.synonymsMode" must be "extend" or "replace"');
    }
    out.synonymsMode = s.synonymsMode;
  }
  if (s.fusion !== undefined) {
    if (s.fusion !== 'rrf' && s.fusion !== 'linear' && s.fusion !== 'adaptive') {
      throw bad(where, '"search.fusion" must be "rrf", "linear" or "adaptive"');
    }
    out.fusion = s.fusion;
  }
  if (s.fileScore !== undefined) {
    if (s.fileScore !== 'best' && s.fileScore !== 'decayed' && s.fileScore !== 'auto') {
      throw bad(where, '"search.fileScore" must be "best", "decayed" or "auto"');
    }
    out.fileScore = s.fileScore;
  }
  for (const key of UNIT_KEYS) {
    const v = s[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
      throw bad(where, `"search.${key}" must be a number from 0 to 1`);
    }
    out[key] = v;
  }
  for (const key of PLANNER_SWITCHES) {
    const v = s[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw bad(where, `"search.${key}" must be true or false`);
    out[key] = v;
  }
  return out;
}

/** Defaults, then `config` over them; the synonym table is merged over DEFAULT_SYNONYMS. */
export function plannerConfigFrom(config: SearchConfig = {}): PlannerConfig {
  return {
    ...DEFAULT_PLANNER_CONFIG,
    synonyms:
      config.synonyms === undefined
        ? DEFAULT_SYNONYMS
        : mergeSynonymTables(DEFAULT_SYNONYMS, config.synonyms, config.synonymsMode ?? 'extend'),
    ...(config.fusion === undefined ? {} : { fusion: config.fusion }),
    ...(config.fileScore === undefined ? {} : { fileScore: config.fileScore }),
    ...pick(config, UNIT_KEYS),
    ...pick(config, PLANNER_SWITCHES),
  };
}

function pick<K extends keyof SearchConfig>(
  config: SearchConfig,
  keys: readonly K[],
): Partial<Pick<SearchConfig, K>> {
  const out: Partial<Pick<SearchConfig, K>> = {};
  for (const k of keys) if (config[k] !== undefined) out[k] = config[k];
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad(where: string, message: string): CodesiftError {
  return new CodesiftError('INVALID_ARGUMENT', `${where}: ${message}`, {
    hint: 'the "search" section is described in `codesift search --help`',
  });
}
