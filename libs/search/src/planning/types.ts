/**
 * The query plan: every decision the engine makes about one query, as plain
 * JSON-serialisable data (no functions, no undefined, no class instances),
 * so a response can explain itself, a test can assert decisions without
 * running any backend, and gRPC can ship it as `plan_json` unchanged.
 */
import type {
  BoilerplateKind,
  ExpansionSource,
  Focus,
  OwnFrames,
  SynonymMergeMode,
  SynonymTable,
} from '@codesift/query';
import type { FusionMethod, SearchFilter } from '../types.js';
import type { PlannerSwitches } from './switches.js';

export type { Focus } from '@codesift/query';

/** How the two sides are combined: a combiner, or 'adaptive' (linear with weights from the query). */
export type FusionMode = FusionMethod | 'adaptive';

/** One BM25 term the keyword side sends, with its boost. */
export interface PlannedTerm {
  /** An analyzer term, spelled as the index stores it. */
  term: string;
  /** Multiplies the term's BM25 contribution; originals 1, expansions less. */
  weight: number;
  /**
   * 'rewrite': suggested by the LLM rewrite (rewrite-step.ts); 'bridge': by
   * the offline vocabulary bridge (bridge-step.ts); both weighted below the user's words.
   */
  source: ExpansionSource | 'rewrite' | 'bridge';
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

/** Whether the LLM rewrite may run: 'auto' when the query is worth it, 'on' for short queries too, 'off' never. */
export type RewriteMode = 'auto' | 'on' | 'off';

/** The LLM query rewrite (planning/rewrite-decision.ts, then rewrite-step.ts). */
export interface LlmRewritePlan {
  mode: RewriteMode;
  /** The planner's decision; the step may still fall back (see `fallback`). */
  decision: 'run' | 'skip';
  reason: string;
  /** The configured model; null when none. */
  model: string | null;
  /** A skip the engine overrides once when the query finds nothing (a short keyword query). */
  retryOnEmpty: boolean;
  /** Whether the step ran because the query found nothing (a skipped query's one attempt). */
  retry: boolean;
  /** The model's terms that are in the index, as searched. */
  terms: string[];
  /** The model's terms found nowhere in the index, not searched. */
  dropped: string[];
  /** The model's focus, when it was applied (the user gave none). */
  focus: Focus | null;
  /** Symbols in the vocabulary slice sent with the question. */
  vocabulary: number;
  /** Milliseconds the step took (slice, model call, checks); null when it did not run. */
  ms: number | null;
  /** Why the step's answer was not used, e.g. 'timeout: no answer ...'; null when used or not run. */
  fallback: string | null;
}

/** The minimum-evidence rule: what counts as evidence, and what the search found. */
export interface EvidencePlan {
  /** The `minEvidence` switch. */
  enabled: boolean;
  /** The keyword terms that are the user's own words and identifiers (any spelling); empty when off. */
  ownTerms: string[];
  /**
   * After the search: 'own-terms' (one is in the index), 'vector' (none is,
   * but the best similarity clears the noise floor), 'none' (the results
   * were dropped); null when the rule was off or there was nothing to judge.
   */
  outcome: {
    kind: 'own-terms' | 'vector' | 'none';
    similarity: number | null;
    floor: number | null;
  } | null;
}

/** The offline vocabulary bridge (planning/rewrite-decision.ts classifyProse, then bridge-step.ts). */
export interface BridgePlan {
  /** The `bridge` switch. */
  enabled: boolean;
  /** The planner's decision; the step may still add nothing (see `outcome`). */
  decision: 'run' | 'skip';
  reason: string;
  /** The identifiers added as keyword OR terms, best first, with their weight, score and why. */
  terms: { name: string; term: string; weight: number; score: number; why: string }[];
  /** Symbols in the vocabulary slice that were ranked. */
  candidates: number;
  /** Milliseconds the step took; null when it did not run. */
  ms: number | null;
  /** What the step did, or why it added nothing or was skipped at run time; null when not run. */
  outcome: string | null;
}

/** A view of the query searched on its own (planning/variants.ts). */
export type VariantKind = 'words' | 'summary' | 'entities' | 'identifiers' | 'phrasing';

/** How the variants' results are merged per chunk: the best weighted score, or reciprocal ranks. */
export type VariantMerge = 'max' | 'rrf';

export interface PlannedVariant {
  kind: VariantKind;
  /** The text this view searches. */
  text: string;
  keyword: PlannedTerm[];
  vector: { run: boolean; text: string };
  /** Its scores' weight in the merge; the query itself is 1. */
  weight: number;
  /** Chunks it retrieved (both sides fused); null until retrieval ran, or when it failed. */
  hits: number | null;
}

export interface VariantsPlan {
  /** Variants asked for, the query itself included; 0 or 1: off. */
  requested: number;
  merge: VariantMerge;
  /** The kinds allowed besides the query itself. */
  kinds: VariantKind[];
  /** The query itself first; empty when variants are off or the query has no other view. */
  list: PlannedVariant[];
  /** The model's phrasings step (phrasings-step.ts); null when it did not run. */
  phrasings: {
    model: string;
    ms: number;
    cached: boolean;
    /** Why there are none, e.g. 'timeout: ...'; null when the model answered. */
    fallback: string | null;
  } | null;
  reason: string;
}

/** How a file's score is made from its chunks' when results are collapsed to files. */
/** 'auto': decayed for long queries (LONG_REPORT_CHARS or more after the rewrite), best otherwise. */
export type FileScoreMode = 'best' | 'decayed' | 'auto';

export interface QueryPlan {
  /** Bumped when the shape changes, for readers of plan_json. */
  version: 1;
  /** What was cut from the user's text before parsing (see @codesift/query stripBoilerplate). */
  rewrite: {
    boilerplate: boolean;
    /** The user's text length, before the cut. */
    originalChars: number;
    /** What was cut: boilerplate blocks, and links (`link`, one line each; see @codesift/query links.ts). */
    removed: { kind: BoilerplateKind | 'link'; lines: number; chars: number }[];
  };
  input: {
    /** Length of the text that was parsed (after the rewrite). */
    chars: number;
    /** 0..1, see @codesift/query computeSpecificity. */
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
    /**
     * Linear fusion with a vector side: its weight scales with how peaked its
     * list is against the index's noise probes (vector-contrast.ts).
     */
    contrast: boolean;
  };
  definitions: {
    enabled: boolean;
    /** Code-shaped words looked up in the symbol index; their defining chunks get `boost`. */
    identifiers: string[];
    boost: number;
    /**
     * The words that break ties between several definitions of one name by
     * their paths (definitions.ts preferByPath): a short query's words; none
     * for a long report, whose words would point everywhere.
     */
    pathWords: string[];
    /** Whether a dotted identifier may be looked up by its tails (definitions.ts lookupNames): short queries only. */
    tails: boolean;
    /**
     * The function a pasted trace failed in (its innermost frame in the
     * user's code), first in `identifiers`; looked up by its tails whatever
     * the query's length, since it is a symbol path, not prose. Null without
     * such a trace.
     */
    failingFunction: string | null;
    /**
     * With a failing function: the query's other code words (the trace's
     * other frames, mostly its callers). Their definitions get `callerShare`
     * of the boost, or all of it when the index defines no failingFunction.
     */
    callers: string[];
    callerShare: number;
    /** Short same-named wrappers yield the credit to the longer definition they forward to (forwarders.ts). */
    forwarders: boolean;
    /**
     * The failing frame's file and line: when the index has no symbol for
     * failingFunction (a language without a grammar, as Swift), the chunk of
     * a file whose path ends like it and holds the line gets the full boost.
     */
    failingLocation: { path: string; line: number | null } | null;
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
    /** Whether pasted material (boilerplate, code blocks, a long report's body) was ignored as a cue. */
    reports: boolean;
    /**
     * Multiplies the score of prose documentation (.md, .rst, .txt, ...) for
     * an implementation question that does not ask about docs; 1 = off.
     */
    docMultiplier: number;
    /**
     * Multiplies the score of repository metadata (issue templates, CI
     * workflows, funding and contribution files) for a question that does
     * not name it; 1 = off.
     */
    metadataMultiplier: number;
    /**
     * Multiplies the score of a changelog (CHANGELOG.md, History.md, NEWS)
     * for a question that does not name one, instead of docMultiplier; 1 = off.
     */
    changelogMultiplier: number;
    /**
     * Multiplies the score of code in documentation and example trees
     * (docs/, examples/) for an implementation question that asks for
     * neither docs nor examples: the out-of-focus multiplier; 1 = off.
     */
    docTreeMultiplier: number;
    /**
     * Multiplies the score of TypeScript declaration files (.d.ts) for an
     * implementation question that asks neither for docs nor about types:
     * the out-of-focus multiplier; 1 = off.
     */
    declarationMultiplier: number;
    /**
     * Multiplies the score of build manifests, configuration and data files
     * (.csproj, .json, lock files, licences) for an implementation question
     * that does not name their kind; 1 = off.
     */
    dataMultiplier: number;
  };
  /** Collapsing to files: a file's score from its best chunk, or best plus a decayed share of the next. */
  files: {
    /** What was asked for ('auto' included). */
    mode: FileScoreMode;
    /** What applies to this query. */
    score: 'best' | 'decayed';
    /** Weight of the i-th next chunk is decay^i (decayed mode). */
    decay: number;
    /** Chunks per file that count (decayed mode). */
    maxChunks: number;
    /**
     * Files by the query words they cover (file-coverage.ts): a short query
     * collapsed to files in 'best' mode, with the `fileCoverage` switch on;
     * null when it does not apply.
     */
    coverage: { words: string[]; weight: number; definedNames: boolean } | null;
  };
  /**
   * The chunk list: each file's chunks reordered, within the positions they
   * hold, by the query words their definitions' names hold
   * (definition-names.ts); null when it does not apply.
   */
  names: { words: string[]; weight: number } | null;
  /** Best fused candidates whose content is read for anchor matching. */
  boostDepth: number;
  llmRewrite: LlmRewritePlan;
  bridge: BridgePlan;
  /** The minimum-evidence rule (planning/min-evidence.ts); its outcome is set by min-evidence-step.ts. */
  evidence: EvidencePlan;
  /** The query's views searched besides itself (planning/variants.ts). */
  variants: VariantsPlan;
  /** The repository's history as a file prior (planning/history.ts, history-prior.ts). */
  history: {
    enabled: boolean;
    /** The query's own analyzer terms, searched in the commit messages. */
    terms: string[];
    /** Best-matching commits read. */
    commits: number;
    /** A commit changing more indexed non-test files than this casts no vote. */
    maxFiles: number;
    /** Rank fusion: an item at rank i whose file has history rank r scores 1/(k + i) + weight/(k + r). */
    weight: number;
    k: number;
  };
  /** The decisions above in words, in the order they were taken. */
  reasons: string[];
}

/** Per-request choices; anything unset (a switch included) falls back to the PlannerConfig. */
export interface PlanOptions extends Partial<PlannerSwitches> {
  limit?: number;
  fusion?: FusionMode;
  /** Linear fusion only; adaptive computes its own. */
  vectorWeight?: number;
  rrfK?: number;
  /** Explicit focus; unset: inferred from the query. */
  focus?: Focus;
  fileScore?: FileScoreMode;
  keywordOnly?: boolean;
  collapseFiles?: boolean;
  filter?: SearchFilter;
  /** Whether the engine has a vector side at all (an index without vectors does not). */
  vectorAvailable?: boolean;
  /** The LLM rewrite's mode; default 'auto'. */
  rewrite?: RewriteMode;
  /** The engine's configured LLM model; unset or null: none (the rewrite never runs). */
  llmModel?: string | null;
  /** Query variants, the query itself included (0 or 1: off); unset: the config's. */
  variants?: number;
  /** The variant kinds allowed; unset: every offline kind when `variants` is set, else the config's. */
  variantKinds?: VariantKind[];
  variantMerge?: VariantMerge;
  /** Embed the views in words (summary, phrasings) too; default false. */
  variantVectors?: boolean;
}

/** Engine-wide settings: defaults, then the repository's config file (see search-config.ts). */
export interface PlannerConfig extends PlannerSwitches {
  /** The merged synonym table the keyword side expands with. */
  synonyms: SynonymTable;
  fusion: FusionMode;
  vectorWeight: number;
  rrfK: number;
  focusMultiplier: number;
  /** What prose docs are multiplied by when `docDemotion` is on. */
  docMultiplier: number;
  fileScore: FileScoreMode;
  fileDecay: number;
  /**
   * Normalized lines of the indexed repository's issue and PR templates
   * (@codesift/query templateLines): report lines equal to one are cut as
   * boilerplate. The engine reads them from the index; absent: none.
   */
  templateLines?: ReadonlySet<string>;
  /**
   * Test words that name the indexed repository's own code
   * (repo-test-words.ts): focus inference does not read them as asking for
   * tests. The engine reads them from the index; absent: none.
   */
  ownTestWords?: ReadonlySet<string>;
  /**
   * Trace frames printed from an installed copy that are the repository's
   * own files (repo-frames.ts), read as its user frames. The engine finds
   * them in the index; absent: none.
   */
  ownFrames?: OwnFrames;
  /** Query variants by default (0: off) and the kinds they use. */
  variants: number;
  variantKinds: readonly VariantKind[];
  variantMerge: VariantMerge;
}

export type { SynonymMergeMode, SynonymTable };
