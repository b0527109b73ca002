import { isUtf8 } from 'node:buffer';

/** How much of a file the binary sniff looks at (as git does). */
export const BINARY_SNIFF_BYTES = 8192;

/**
 * Share of control bytes above which a NUL-free sample is still called binary.
 * Real text has next to none (tabs, newlines and form feeds do not count), so
 * the bar is set well above what a stray escape character could reach.
 */
const CONTROL_BYTE_RATIO = 0.1;

/** NUL in the first 8 KB, or too many control bytes there. UTF-16 text counts as binary. */
export function isBinaryContent(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < end; i++) {
    const b = bytes[i] as number;
    if (b === 0) return true;
    // 0x08-0x0d are backspace, tab, newline, vertical tab, form feed and
    // carriage return; 0x1b starts the ANSI colour codes found in logs.
    if (b < 0x08 || (b > 0x0d && b < 0x20 && b !== 0x1b)) control++;
  }
  return end > 0 && control / end > CONTROL_BYTE_RATIO;
}

// The default decoder replaces invalid sequences with U+FFFD and drops a
// leading UTF-8 BOM, which is what indexing wants.
const decoder = new TextDecoder('utf-8');

/**
 * Decodes UTF-8 without ever failing: invalid bytes become U+FFFD and `lossy`
 * says so. A leading BOM is stripped.
 */
export function decodeText(bytes: Uint8Array): { text: string; lossy: boolean } {
  // Validating first costs a fraction of decoding and avoids paying for an
  // exception (fatal decoder) on every invalid file.
  const lossy = !isUtf8(bytes);
  return { text: decoder.decode(bytes), lossy };
}
