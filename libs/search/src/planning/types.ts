/**
 * The query plan: every decision the engine makes about one query, as plain
 * JSON-serialisable data (no functions, no undefined, no class instances),
 * so a response can explain itself, a test can assert decisions without
 * running any backend, and gRPC can ship it as `plan_json` unchanged.
 */
import type { ExpansionSource, Focus, SynonymMergeMode, SynonymTable } from '@codesift/analysis';
import type { FusionMethod, SearchFilter } from '../types.js';

export type { Focus } from '@codesift/analysis';

/** How the two sides are combined: a combiner, or 'adaptive' (linear with weights from the query). */
export type FusionMode = FusionMethod | 'adaptive';

/** One BM25 term the keyword side sends, with its boost. */
export interface PlannedTerm {
  /** An analyzer term, spelled as the index stores it. */
  term: string;
  /** Multiplies the term's BM25 contribution; originals 1, expansions less. */
  weight: number;
  source: ExpansionSource;
  /** The user's text it came from. */
  from: string;
}

export type AnchorKind = 'identifier' | 'code' | 'path' | 'phrase' | 'trace';

/** Exact text whose verbatim presence in a result earns it a boost. */
export interface PlannedAnchor {
  text: string;
  kind: AnchorKind;
  /** Identifiers, codes and paths are case-sensitive; quoted prose is not. */
  caseSensitive: boolean;
  /** Share of the anchor boost, relative to the other anchors. */
  weight: number;
}

export interface QueryPlan {
  /** Bumped when the shape changes, for readers of plan_json. */
  version: 1;
  input: {
    chars: number;
    /** 0..1, see @codesift/analysis computeSpecificity. */
    specificity: number;
    identifierOnly: boolean;
    hasTrace: boolean;
  };
  limit: number;
  collapseFiles: boolean;
  /** Request filter and the query's own `lang:`/`path:` filters, merged. */
  filter: SearchFilter;
  keyword: {
    expansion: boolean;
    terms: PlannedTerm[];
    /** Candidates fetched. */
    depth: number;
  };
  vector: {
    run: boolean;
    /** What is embedded: the user's words minus filters, or a digest of a long text. */
    text: string;
    /** True when `text` is a digest of a longer query (see vector-text.ts). */
    condensed: boolean;
    depth: number;
    /** When the side is skipped for an identifier-only query: embed anyway if BM25 finds nothing. */
    fallbackOnEmpty: boolean;
  };
  fusion: {
    method: FusionMode;
    /** What actually combines the lists: adaptive is linear with computed weights. */
    combiner: FusionMethod;
    /** Linear and adaptive: weight of the vector side; null for RRF. */
    vectorWeight: number | null;
    /** RRF constant; null for linear and adaptive. */
    rrfK: number | null;
    /** The largest score fusion can give (1 for linear, 2/(k+1) for RRF): the unit of every boost. */
    scale: number;
  };
  definitions: {
    /** Code-shaped words looked up in the symbol index; their defining chunks get `boost`. */
    identifiers: string[];
    boost: number;
  };
  anchors: {
    enabled: boolean;
    list: PlannedAnchor[];
    /** Added to a result that holds every anchor; a partial match gets its weighted share. */
    maxBoost: number;
  };
  focus: {
    focus: Focus;
    source: 'request' | 'inferred';
    reason: string;
    /** Whether the out-of-focus multiplier is applied. */
    scoring: boolean;
    /** Multiplies the score of a result out of focus (test files for 'implementation', others for 'tests'). */
    outOfFocusMultiplier: number;
  };
  /** Best fused candidates whose content is read for anchor matching. */
  boostDepth: number;
  /** The decisions above in words, in the order they were taken. */
  reasons: string[];
}

/** Per-request choices; anything unset falls back to the PlannerConfig. */
export interface PlanOptions {
  limit?: number;
  fusion?: FusionMode;
  /** Linear fusion only; adaptive computes its own. */
  vectorWeight?: number;
  rrfK?: number;
  /** Explicit focus; unset: inferred from the query. */
  focus?: Focus;
  expansion?: boolean;
  anchors?: boolean;
  focusScoring?: boolean;
  keywordOnly?: boolean;
  collapseFiles?: boolean;
  filter?: SearchFilter;
  /** Whether the engine has a vector side at all (an index without vectors does not). */
  vectorAvailable?: boolean;
}

/** Engine-wide settings: defaults, then the repository's config file (see search-config.ts). */
export interface PlannerConfig {
  /** The merged synonym table the keyword side expands with. */
  synonyms: SynonymTable;
  fusion: FusionMode;
  vectorWeight: number;
  rrfK: number;
  focusMultiplier: number;
  expansion: boolean;
  anchors: boolean;
  focusScoring: boolean;
}

export type { SynonymMergeMode, SynonymTable };
