/**
 * Frames and error lines as the line classifier finds them: the parsed
 * values plus the input offsets of their parts, which become the trace's
 * terms.
 */
import type { StackFrame, TraceError, TraceFormat } from '../types.js';

const RE_TRAILING_LOCATION = /:(\d+)(?::(\d+))?$/;

export interface FrameDraft extends StackFrame {
  format: TraceFormat;
  pathStart: number;
  pathEnd: number;
  fnStart: number;
  fnEnd: number;
  /** The function reduced to what a repository defines, or null. */
  fnValue: string | null;
  /** Path to search, which may differ from the printed one (Java). */
  pathValue: string | null;
}

/** What a runtime says about its frames: which are not the user's code, and what a function is called in the repository. */
export interface FrameRules {
  format: TraceFormat;
  /** Runtime, standard-library or dependency code rather than the user's. */
  isExternal(path: string | null, fn: string | null): boolean;
  /**
   * The printed function reduced to the symbol path the chunker gives its
   * definition (`ns::Shape::area(int) const` -> `ns.Shape.area`), or null
   * when it names nothing a repository defines (`<module>`, `{main}`).
   */
  normalizeFunction(raw: string): string | null;
}

/** A printed function that names no definition: `<module>`, `<anonymous>`, `<main>`, `{main}`. */
export function isPlaceholderFunction(f: string): boolean {
  return (
    f === '' || (f.startsWith('<') && f.endsWith('>')) || (f.startsWith('{') && f.endsWith('}'))
  );
}

export interface ErrorDraft extends TraceError {
  typeStart: number;
  typeEnd: number;
  messageStart: number;
  messageEnd: number;
}

export function frameDraft(
  rules: FrameRules,
  start: number,
  end: number,
  path: [string, number, number] | null,
  line: string | undefined,
  column: string | undefined,
  fn: [string, number, number] | null,
): FrameDraft {
  let pathText = path ? path[0] : null;
  if (pathText?.startsWith('file://')) pathText = pathText.slice(7);
  // `./src/x.rs` and `src/x.rs` are one file to search for.
  let pathValue = pathText;
  while (pathValue?.startsWith('./')) pathValue = pathValue.slice(2);
  const fnText = fn ? fn[0] : null;
  const frame: FrameDraft = {
    path: pathText,
    line: line !== undefined ? Number(line) : null,
    column: column !== undefined ? Number(column) : null,
    function: fnText,
    external: rules.isExternal(pathText, fnText),
    start,
    end,
    format: rules.format,
    pathStart: path ? path[1] : -1,
    pathEnd: path ? path[2] : -1,
    fnStart: fn ? fn[1] : -1,
    fnEnd: fn ? fn[2] : -1,
    fnValue:
      fnText !== null && !isPlaceholderFunction(fnText.trim())
        ? rules.normalizeFunction(fnText.trim())
        : null,
    pathValue,
  };
  return frame;
}

/** Group `g` of a `d`-flag match as [text, absStart, absEnd], offset by the line start. */
export function group(
  m: RegExpExecArray,
  g: number,
  base: number,
): [string, number, number] | null {
  const text = m[g];
  const idx = m.indices?.[g];
  if (text === undefined || !idx) return null;
  return [text, base + idx[0], base + idx[1]];
}

export function splitLocation(loc: [string, number, number]): {
  path: [string, number, number];
  line?: string;
  column?: string;
} {
  const m = RE_TRAILING_LOCATION.exec(loc[0]);
  if (!m || m.index === 0) return { path: loc };
  return {
    path: [loc[0].slice(0, m.index), loc[1], loc[1] + m.index],
    line: m[1],
    column: m[2],
  };
}

export function errorDraft(
  typeG: [string, number, number],
  msgG: [string, number, number] | null,
  start: number,
  end: number,
): ErrorDraft {
  const message = msgG ? msgG[0].trim() : '';
  return {
    type: typeG[0],
    message,
    start,
    end,
    typeStart: typeG[1],
    typeEnd: typeG[2],
    messageStart: msgG ? msgG[1] : -1,
    messageEnd: msgG ? msgG[2] : -1,
  };
}

/** An error type the runtime does not print (`panic`, a shell error): named, but no term of the input. */
export function unnamedType(name: string, at: number): [string, number, number] {
  return [name, at, at];
}

/** `[text, start, end]` of `text.slice(from, to)` for a line starting at `base`. */
export function slice(
  text: string,
  from: number,
  to: number,
  base: number,
): [string, number, number] {
  return [text.slice(from, to), base + from, base + to];
}

/** Which groups of a match hold a frame's parts; a part without a group is absent. */
export interface FrameGroups {
  path?: number;
  line?: number;
  column?: number;
  fn?: number;
}

/** The frame a `d`-flag match `m` of line `ln` prints, its parts in the groups `g` names. */
export function frameFrom(
  rules: FrameRules,
  ln: { start: number; end: number },
  m: RegExpExecArray,
  g: FrameGroups,
): FrameDraft {
  const at = (k: number | undefined) => (k === undefined ? null : group(m, k, ln.start));
  return frameDraft(
    rules,
    ln.start,
    ln.end,
    at(g.path),
    g.line === undefined ? undefined : m[g.line],
    g.column === undefined ? undefined : m[g.column],
    at(g.fn),
  );
}
