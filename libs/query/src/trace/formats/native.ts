/**
 * C and C++ (and anything compiled to native code): gdb backtraces `#0
 * 0x000055555555518d in shop::Order::total (this=0x7ffe, n=3) at
 * src/order.cc:12`, lldb's `frame #0: 0x0000000100003f50
 * app\`shop::Order::total(int) at order.cc:12:5`, sanitizer reports
 * (`==42==ERROR: AddressSanitizer: heap-buffer-overflow ...`, frames `#0
 * 0x4f8d3c in shop::Order::total(int) /src/order.cc:12:3`), UBSan's
 * `src/order.cc:12:5: runtime error: ...`, gdb's `Program received signal
 * SIGSEGV, Segmentation fault.` and an uncaught C++ exception's
 * `terminate called after throwing ...` / `what():`. Functions become the
 * chunker's symbol paths: `shop::Order::total(int) const` is
 * `shop.Order.total`.
 */
import { errorDraft, type FrameRules, frameFrom, group, unnamedType } from '../drafts.js';
import { errorAt, oneLineFrame, type TraceRecognizer } from '../recognizer.js';

const ADDRESS = '0x[0-9a-fA-F]+';
const RE_SANITIZER_FRAME = new RegExp(
  `^\\s*#\\d+ ${ADDRESS} in (.+?)(?: (\\S+?):(\\d+)(?::(\\d+))?| \\(([^()\\s]+)\\+${ADDRESS}\\)(?: \\(BuildId: \\w+\\))?)\\s*$`,
  'd',
);
/** With an address (`#1  0x... in f (x=1) at a.c:3`, or gdb's stop line `0x... in f ...`); without one, a location is required. */
const RE_GDB_FRAME = new RegExp(
  `^\\s*(?:#\\d+\\s+)?${ADDRESS} in (.+?) \\((.*)\\)(?: at (\\S+):(\\d+)| from (\\S+))?\\s*$`,
  'd',
);
const RE_GDB_FRAME_AT = /^\s*#\d+\s+(.+?) \((.*)\) at (\S+):(\d+)\s*$/d;
const RE_LLDB_FRAME = new RegExp(
  `^\\s*\\*?\\s*frame #\\d+: ${ADDRESS} [^\`\\s]+\`(.+?)(?: at (\\S+?):(\\d+)(?::(\\d+))?)?\\s*$`,
  'd',
);
const RE_SANITIZER_ERROR = /^==\d+==\s*(?:ERROR|WARNING): (\w*Sanitizer): (.*)$/d;
const RE_UBSAN = /^(\S+?):(\d+):(\d+): (runtime error): (.*)$/d;
const RE_SIGNAL = /^Program received signal (SIG\w+), (.+?)\.?\s*$/d;
const RE_TERMINATE = /^terminate called after throwing an instance of '([^']+)'\s*$/d;
const RE_WHAT = /^\s*what\(\):\s+(.*)$/d;
const RE_NOISE = new RegExp(
  `^\\s*(?:(?:READ|WRITE) of size \\d+ at ${ADDRESS}.*|${ADDRESS} is located .*|(?:previously )?(?:allocated|freed) by thread \\w+ here:|SUMMARY: \\w*Sanitizer: .*|Thread \\d+ "[^"]*" received signal .*|\\((?:gdb|lldb)\\) .*|\\* thread #\\d+.*stop reason = .*)$`,
);

const rules: FrameRules = {
  format: 'native',
  isExternal: (path, fn) =>
    /^(?:\/usr\/(?:include|lib|local\/include)\/|\/lib\/|\.\.\/(?:sysdeps|csu|nptl)\/)|\/libstdc\+\+|\/libc\+\+|\blibc\.so/.test(
      path ?? '',
    ) ||
    /^(?:__libc_|__GI_|_start$|start_thread|clone\d*$|std::|__gnu_cxx::|__asan|__sanitizer|__interceptor_|__cxa_|__pthread|abort$|raise$|\?\?)/.test(
      fn ?? '',
    ),
  normalizeFunction: (raw) => {
    let f = raw
      .replace(/^(?:non-)?virtual thunk to /, '')
      .replaceAll('(anonymous namespace)::', '')
      .replace(/\[abi:\w+\]/g, '');
    // The arguments (and everything after them: `const`, a lambda's `::$_0::operator()`) go.
    let depth = 0;
    for (let k = 0; k < f.length; k++) {
      const c = f[k];
      if (c === '<') depth++;
      else if (c === '>') depth--;
      else if (c === '(' && depth === 0 && k > 0) {
        f = f.slice(0, k);
        break;
      }
    }
    f = stripTemplateArguments(f).trim();
    if (f === '' || f === '??' || /\s/.test(f)) return null;
    return f.replaceAll('::', '.');
  },
};

/** `std::vector<int>::at` -> `std::vector::at` (nested brackets too); `operator<` is rare enough to ignore. */
function stripTemplateArguments(f: string): string {
  let out = '';
  let depth = 0;
  for (const c of f) {
    if (c === '<') depth++;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += c;
  }
  return out;
}

export const native: TraceRecognizer = {
  format: 'native',
  hint: /#\d|0x|frame #|\((?:gdb|lldb)\)|Sanitizer|runtime error|by thread|received signal|terminate called|what\(\)/,
  recognize({ lines, i }) {
    const ln = lines[i]!;
    const t = ln.text;
    const at = (g: number): [string, number, number] | null => group(m!, g, ln.start);
    let m = RE_SANITIZER_FRAME.exec(t) ?? RE_LLDB_FRAME.exec(t);
    if (m) return oneLineFrame(frameFrom(rules, ln, m, { fn: 1, path: 2, line: 3, column: 4 }));
    m = RE_GDB_FRAME.exec(t) ?? RE_GDB_FRAME_AT.exec(t);
    if (m) return oneLineFrame(frameFrom(rules, ln, m, { fn: 1, path: 3, line: 4 }));
    if (RE_NOISE.test(t)) return { kind: 'noise', format: 'native', lines: 1 };
    const error = (type: [string, number, number], message: [string, number, number] | null) =>
      errorDraft(type, message, ln.start, ln.end);
    m = RE_SANITIZER_ERROR.exec(t) ?? RE_SIGNAL.exec(t);
    if (m) return errorAt('native', undefined, error(at(1)!, at(2)));
    m = RE_UBSAN.exec(t);
    if (m) {
      const frame = frameFrom(rules, ln, m, { path: 1, line: 2, column: 3 });
      return errorAt('native', frame, error(at(4)!, at(5)));
    }
    m = RE_TERMINATE.exec(t);
    // The exception's message is on the `what():` line after it.
    if (m) return errorAt('native', undefined, error(at(1)!, null), false);
    m = RE_WHAT.exec(t);
    if (m) return errorAt('native', undefined, error(unnamedType('what()', ln.start), at(1)));
    return null;
  },
};
