/** A webpack-style bundle: one long line, no indentation, few spaces. */
export function bundleText(chars: number): string {
  const unit =
    '!function(e){var t={};function n(r){if(t[r])return t[r].exports;var o=t[r]={i:r,l:!1,exports:{}};return e[r].call(o.exports,o,o.exports,n),o.l=!0,o.exports}n.m=e,n.c=t}([';
  return `${unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars)}\n`;
}
