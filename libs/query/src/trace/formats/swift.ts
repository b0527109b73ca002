/**
 * Swift (and other Apple-platform) crashes: crash-report frames `0  MyApp
 * 0x0000000100f0c8a4 MyApp.OrderService.total(items:) -> Swift.Int + 120`
 * (with `(OrderService.swift:42)` after them once symbolicated), the Swift
 * 5.9 backtracer's `0 0x... OrderService.total(items:) + 64 in MyApp at
 * /src/Sources/MyApp/OrderService.swift:42:13`, `Thread 0 Crashed:`, and
 * the runtime's `OrderService.swift:42: Fatal error: Index out of range`
 * (or the older `Fatal error: msg: file OrderService.swift, line 42`).
 * Functions lose their module, arguments and closure wrappers:
 * `closure #1 in MyApp.OrderService.total(items:)` is `OrderService.total`.
 */
import { errorDraft, type FrameGroups, type FrameRules, frameFrom, group } from '../drafts.js';
import type { Line } from '../lines.js';
import { errorAt, type FrameResult, oneLineFrame, type TraceRecognizer } from '../recognizer.js';

const RE_CRASH_FRAME =
  /^\s*\d+\s+(\S+)\s+0x[0-9a-fA-F]+ (.+?) \+ \d+(?: \((\S+?):(\d+)(?::(\d+))?\))?\s*$/d;
const RE_BACKTRACER_FRAME =
  /^\s*\*?\s*\d+(?: \[[\w ]+\])*\s+0x[0-9a-fA-F]+ (.+?)(?: \+ \d+)? in (\S+)(?: at (\S+?):(\d+)(?::(\d+))?)?\s*$/d;
const RE_FATAL_AT =
  /^(\S+?\.swift):(\d+): (Fatal error|Precondition failed|Assertion failed): ?(.*)$/d;
const RE_FATAL_OLD =
  /^(Fatal error|Precondition failed|Assertion failed): (.*): file (\S+?), line (\d+)\s*$/d;
const RE_NOISE =
  /^\s*(?:Thread \d+(?: name:.*| Crashed:.*|:)|\*\*\* Signal \d+: .*|Crashed Thread:.*)\s*$/;

/** Images of the system and the Swift runtime: dylibs and Apple frameworks. */
const RE_SYSTEM_IMAGE =
  /^(?:lib\w+\.dylib|dyld|libswift\w*|Foundation|CoreFoundation|UIKitCore|UIKit|AppKit|SwiftUI|GraphicsServices|XCTest|Combine|libdispatch|libsystem_\w+)$/;

const rules: FrameRules = {
  format: 'swift',
  // Frames of system images are marked by imageFrame; these paths and names are the toolchain's.
  isExternal: (path, fn) =>
    /^\/(?:Library|Applications|System|usr)\//.test(path ?? '') ||
    /^(?:Swift\.|__|_dispatch|_pthread|start$|thread_start)/.test(fn ?? ''),
  normalizeFunction: (raw) => {
    let f = raw.replace(
      /^(?:(?:closure #\d+|implicit closure #\d+|specialized|merged|partial apply for|thunk for|reabstraction thunk helper from|@objc|protocol witness for|generic specialization <[^>]*> of) (?:in )?)+/,
      '',
    );
    const paren = f.indexOf('(');
    if (paren >= 0) f = f.slice(0, paren);
    f = f.replace(/<[^>]*>/g, '').trim();
    if (f === '' || f.startsWith('$') || /\s/.test(f)) return null;
    return f;
  },
};

/** The function without its module (`MyApp.OrderService.total` in image `MyApp`). */
function dropModule(fnValue: string | null, image: string): string | null {
  if (fnValue === null) return null;
  return fnValue.startsWith(`${image}.`) ? fnValue.slice(image.length + 1) : fnValue;
}

/** A frame of binary image `image`: its module is left out of the function, and system images are not the user's. */
function imageFrame(ln: Line, m: RegExpExecArray, image: string, g: FrameGroups): FrameResult {
  const frame = frameFrom(rules, ln, m, g);
  frame.fnValue = dropModule(frame.fnValue, image);
  if (RE_SYSTEM_IMAGE.test(image)) frame.external = true;
  return oneLineFrame(frame);
}

export const swift: TraceRecognizer = {
  format: 'swift',
  hint: /0x|\.swift|Fatal error|Precondition failed|Assertion failed|Thread \d|Signal \d|Crashed/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const t = ln.text;
    let m = RE_CRASH_FRAME.exec(t);
    if (m) return imageFrame(ln, m, m[1]!, { fn: 2, path: 3, line: 4, column: 5 });
    m = RE_BACKTRACER_FRAME.exec(t);
    if (m) return imageFrame(ln, m, m[2]!, { fn: 1, path: 3, line: 4, column: 5 });
    m = RE_FATAL_AT.exec(t);
    if (m) {
      const error = errorDraft(group(m, 3, ln.start)!, group(m, 4, ln.start), ln.start, ln.end);
      return errorAt('swift', frameFrom(rules, ln, m, { path: 1, line: 2 }), error);
    }
    m = RE_FATAL_OLD.exec(t);
    if (m) {
      const error = errorDraft(group(m, 1, ln.start)!, group(m, 2, ln.start), ln.start, ln.end);
      return errorAt('swift', frameFrom(rules, ln, m, { path: 3, line: 4 }), error);
    }
    if (RE_NOISE.test(t)) return { kind: 'noise', format: 'swift', lines: 1 };
    return null;
  },
};
