/**
 * The recognizer table: one entry per runtime or output format, tried in
 * this order on each line until one knows it. The order only matters
 * where two formats print alike:
 * - .NET before the JVM: both print `at Ns.Type.Method(...)`, and a .NET
 *   frame without a file is only told apart by its typed parameters;
 * - Rust before JavaScript: both print `at path:line:col`, Rust's under a
 *   frame of its own (and only for `.rs` files);
 * - PHP before native code: both number frames `#0`, PHP's name a `.php`
 *   file with the line in parentheses;
 * - the generic error line last, so every runtime's own error lines (Go's
 *   `panic:`, PHP's `Fatal error:`) are read with their runtime's rules.
 */
import { dotnet } from './formats/dotnet.js';
import { errorLine } from './formats/error-line.js';
import { go } from './formats/go.js';
import { javascript } from './formats/javascript.js';
import { jvm } from './formats/jvm.js';
import { lua } from './formats/lua.js';
import { native } from './formats/native.js';
import { php } from './formats/php.js';
import { python } from './formats/python.js';
import { ruby } from './formats/ruby.js';
import { rust } from './formats/rust.js';
import { shell } from './formats/shell.js';
import { swift } from './formats/swift.js';
import type { TraceRecognizer } from './recognizer.js';

export const RECOGNIZERS: readonly TraceRecognizer[] = [
  python,
  dotnet,
  jvm,
  rust,
  javascript,
  go,
  ruby,
  php,
  native,
  swift,
  lua,
  shell,
  errorLine,
];
