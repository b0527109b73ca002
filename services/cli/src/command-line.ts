import { parseArgs } from 'node:util';
import { UsageError } from './io.js';

/**
 * One command-line option: what parseArgs reads and what --help says about
 * it, in one place, so the help cannot drift from the parser.
 *
 * Why not commander: it suggests and generates help too, but typed option
 * values need a second package (@commander-js/extra-typings), and keeping
 * exit code 2, errors on the command's stream and each command's prose
 * around its option list needs exitOverride, configureOutput and
 * addHelpText on every command: no less code than this module, which adds
 * to node:util's parseArgs (typed already) only what it lacks.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean;
  /** The value's placeholder in the help, e.g. '<path>'. */
  value?: string;
  /** What the option does; wrapped into the help's second column. */
  help: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

/** Every command takes -h/--help. */
export const HELP_OPTION = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionSpecs;

/** A flag left out reads as false, so callers see a plain boolean. */
type WithFlagDefaults<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends { type: 'boolean' } ? O[K] & { default: false } : O[K];
};

/**
 * parseArgs in strict mode; a wrong command line becomes a UsageError (exit
 * 2), an unknown flag naming the nearest known one.
 */
export function parseCommandLine<const O extends OptionSpecs, const P extends boolean = true>(
  argv: string[],
  specs: O,
  allowPositionals: P = true as P,
) {
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [
      name,
      spec.type === 'boolean' ? { default: false, ...spec } : spec,
    ]),
  ) as WithFlagDefaults<O>;
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw err;
    const message = (err as Error).message;
    const unknown = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
    if (unknown === undefined) throw new UsageError(message);
    const guess = unknown.startsWith('--')
      ? closestName(unknown.slice(2), Object.keys(specs))
      : undefined;
    throw new UsageError(
      `unknown option '${unknown}'${guess === undefined ? '' : ` (did you mean --${guess}?)`}`,
    );
  }
}

const FLAG_COLUMN = 24;
const HELP_WIDTH = 80;

/** The help's option list: flags in the first column, the wrapped description beside them. */
export function optionHelp(options: OptionSpecs): string {
  const indent = ' '.repeat(2 + FLAG_COLUMN);
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(options)) {
    const value = spec.type === 'string' ? ` ${spec.value ?? '<value>'}` : '';
    const flags = `${spec.short ? `-${spec.short}, ` : ''}--${name}${value}`;
    const text = wrap(spec.help, HELP_WIDTH - indent.length);
    if (flags.length >= FLAG_COLUMN) lines.push(`  ${flags}`);
    else lines.push(`  ${flags.padEnd(FLAG_COLUMN)}${text.shift() ?? ''}`.trimEnd());
    for (const line of text) lines.push(indent + line);
  }
  return lines.join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The known name a mistyped one most likely meant: the only one it begins, or one a few edits away. */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const prefixed = typed.length >= 2 ? known.filter((k) => k.startsWith(typed)) : [];
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(typed, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitute));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** The LLM rewrite's command-line option, shared by search and eval. */
export const REWRITE_OPTION = {
  rewrite: {
    type: 'string',
    value: '<mode>',
    help: 'LLM query rewrite, auto, on or off (default auto: natural-language questions, when a model is configured; on: short keyword queries too; identifiers and stack traces are never sent)',
  },
} as const satisfies OptionSpecs;

/** The offline vocabulary bridge's command-line option, shared by search and eval. */
export const BRIDGE_OPTION = {
  bridge: {
    type: 'string',
    value: '<on|off>',
    help: "offline vocabulary bridge: natural-language queries also search the identifiers the repository's own statistics relate to their words (default: off)",
  },
} as const satisfies OptionSpecs;

/** `--bridge`'s value as the request's switch; undefined when not given. */
export function bridgeSwitch(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new UsageError(`--bridge must be on or off, got ${value}`);
}

/** `--rewrite`'s value checked; undefined when not given. */
export function rewriteMode(value: string | undefined): 'auto' | 'on' | 'off' | undefined {
  if (value === undefined || value === 'auto' || value === 'on' || value === 'off') return value;
  throw new UsageError(`--rewrite must be auto, on or off, got ${value}`);
}

/** Query variants' command-line options, shared by search and eval. */
export const VARIANT_OPTIONS = {
  variants: {
    type: 'string',
    value: '<n>',
    help: "search the query as up to n views of itself (the query included), in parallel, merged per chunk (default 3: a long pasted report also by its summary line and by the code it names; a short query has no such views). An explicit n allows every kind: also the identifiers of a query mixing code and prose, and the model's phrasings when a chat model is configured. 0 or 1: off",
  },
  'variant-merge': {
    type: 'string',
    value: '<method>',
    help: "how variants merge per chunk: rrf (reciprocal ranks, default) or max (a chunk's best weighted score)",
  },
} as const satisfies OptionSpecs;

/** `--variants` and `--variant-merge` checked; undefined for those not given. */
export function variantOptions(values: { variants?: string; 'variant-merge'?: string }): {
  variants?: number;
  variantMerge?: 'max' | 'rrf';
} {
  const out: { variants?: number; variantMerge?: 'max' | 'rrf' } = {};
  if (values.variants !== undefined) {
    const n = Number(values.variants);
    if (!(Number.isInteger(n) && n >= 0 && n <= 8)) {
      throw new UsageError(`--variants must be an integer from 0 to 8, got ${values.variants}`);
    }
    out.variants = n;
  }
  const merge = values['variant-merge'];
  if (merge !== undefined) {
    if (merge !== 'max' && merge !== 'rrf') {
      throw new UsageError(`--variant-merge must be max or rrf, got ${merge}`);
    }
    out.variantMerge = merge;
  }
  return out;
}
