/**
 * The planner's on/off features, listed once. A request (SearchRequest),
 * the planner's per-request options (PlanOptions), the engine-wide config
 * (PlannerConfig) and the repository's config file (SearchConfig) all take
 * these keys from here, so adding a feature is one entry in each of the two
 * declarations below.
 */

/** Every switch defaults to true but the bridge, vector contrast and defined names (see DEFAULT_PLANNER_CONFIG): the evaluation decides which stay on. */
export interface PlannerSwitches {
  /** Code-aware synonyms and identifier variants on the keyword side; default true. */
  expansion: boolean;
  /** Boost results that contain the query's identifiers, codes or quoted phrases verbatim; default true. */
  anchors: boolean;
  /** Demote results out of focus (test files for implementation questions, and the reverse); default true. */
  focusScoring: boolean;
  /** Boost the chunk defining a symbol the query names; default true. */
  definitions: boolean;
  /**
   * A short query's Markdown code spans name definitions whatever the
   * word's shape (`` `polyval` `` as `polyval`'s name, not the prose word;
   * definitions.ts queryIdentifiers); default true.
   */
  codeSpans: boolean;
  /**
   * A trace's innermost frame printed from an installed copy of the
   * repository (`site-packages/<pkg>/...`, a crate in the cargo registry)
   * names the repository's own file when one has that path's tail
   * (repo-frames.ts); default true.
   */
  installedFrames: boolean;
  /**
   * Among definitions of one name in several files, a short one whose body
   * calls that name bare or through a part of a longer namesake's path (a
   * wrapper forwarding to the implementation) yields the definition credit
   * to the longer one (forwarders.ts); default true.
   */
  forwarders: boolean;
  /** Cut environment reports and issue-template text out of the query before searching; default true. */
  boilerplate: boolean;
  /** Focus inference ignores pasted material (boilerplate, code blocks, a long report's body); default true. */
  reportFocus: boolean;
  /**
   * Demote prose docs (.md, .rst, .txt) for implementation questions that do not ask for docs,
   * and build manifests, configuration and data files (.csproj, .json, lock files) for implementation
   * questions that do not name their kind, and repository metadata (.github/, CI, funding, contributing)
   * for questions that do not name it; default true.
   */
  docDemotion: boolean;
  /**
   * The offline vocabulary bridge: natural-language queries also search the
   * identifiers the repository's own statistics relate to their words
   * (bridge-step.ts); default in DEFAULT_PLANNER_CONFIG.
   */
  bridge: boolean;
  /**
   * The minimum-evidence rule: no results when none of the query's own
   * terms is in the index and no vector hit clears the index's noise floor
   * (planning/min-evidence.ts); default true.
   */
  minEvidence: boolean;
  /**
   * A short query's files ranked by their best chunk plus the query words
   * the file covers in its candidate chunks and path, rare words weighing
   * most (file-coverage.ts); default true.
   */
  fileCoverage: boolean;
  /**
   * File coverage counts a query word that is the whole name of one of a
   * file's candidate classes or functions (`Posify`, `def posify`) twice, as
   * it counts a word of the file's name (defined-names.ts); default in
   * DEFAULT_PLANNER_CONFIG.
   */
  definedNames: boolean;
  /**
   * The chunk list orders each file's chunks, in the positions they hold,
   * by the query words their functions' and methods' names hold
   * (definition-names.ts); default true.
   */
  nameOrder: boolean;
  /**
   * Linear fusion weighs the vector side by how peaked its list is against
   * what random letter strings get from the same index, so a query the
   * model cannot place does not reorder the keyword side's files
   * (vector-contrast.ts); default in DEFAULT_PLANNER_CONFIG.
   */
  vectorContrast: boolean;
  /**
   * The files of the commits whose messages best match the query join the
   * ranking by rank fusion (history-prior.ts; the index keeps the
   * repository's recent commits); default true.
   */
  history: boolean;
}

export type PlannerSwitch = keyof PlannerSwitches;

// A record, not an array: the compiler checks that it names every switch and nothing else.
const SWITCH_KEYS: Readonly<Record<PlannerSwitch, true>> = {
  expansion: true,
  anchors: true,
  focusScoring: true,
  definitions: true,
  codeSpans: true,
  installedFrames: true,
  forwarders: true,
  boilerplate: true,
  reportFocus: true,
  docDemotion: true,
  bridge: true,
  minEvidence: true,
  fileCoverage: true,
  definedNames: true,
  nameOrder: true,
  vectorContrast: true,
  history: true,
};

/** The keys of PlannerSwitches, for code that walks them (validation, defaults, request options). */
export const PLANNER_SWITCHES: readonly PlannerSwitch[] = Object.freeze(
  Object.keys(SWITCH_KEYS) as PlannerSwitch[],
);

function switchesFrom(value: (key: PlannerSwitch) => boolean): PlannerSwitches {
  return Object.fromEntries(PLANNER_SWITCHES.map((k) => [k, value(k)])) as Record<
    PlannerSwitch,
    boolean
  >;
}

/** Every switch set to `on`. */
export function allSwitches(on: boolean): PlannerSwitches {
  return switchesFrom(() => on);
}

/** The switches set in `options`, each falling back to `config`'s. */
export function resolveSwitches(
  options: Partial<PlannerSwitches>,
  config: PlannerSwitches,
): PlannerSwitches {
  return switchesFrom((k) => options[k] ?? config[k]);
}
