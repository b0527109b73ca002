import { readFile } from 'node:fs/promises';

/**
 * The Universal Sentence Encoder lite input pipeline, re-implemented to give
 * exactly the token ids TF.js's USE tokenizer gives:
 *
 * - NFKC-normalise; a non-empty text gets a leading "▁" and every space
 *   becomes "▁" (other whitespace is left alone and is usually unknown);
 * - Viterbi over a SentencePiece unigram lattice built from vocab.json
 *   (pieces from id 6 on; an unmatched character becomes <unk> = id 0 with
 *   score 0), with the reference's tie-breaking quirks: a position whose best
 *   score is exactly 0 counts as unset, and a later candidate with an equal
 *   score wins;
 * - backtracking steps by the piece's UTF-16 length; runs of <unk> merge.
 *
 * The model only reads the first 128 tokens. A piece never contains "▁" (or
 * any character that only starts pieces) past its first character, so every
 * such position is a forced token boundary: the tokens before it do not
 * depend on the text after it. Encoding stops at the first forced boundary
 * that already has enough tokens before it, which keeps long chunks cheap.
 */

export type Vocabulary = readonly (readonly [string, number | null])[];

/** Ids below this are control symbols (<unk>, <s>, </s>, extra ids) and never matched. */
const RESERVED_SYMBOLS = 6;
const UNKNOWN_ID = 0;
const SEPARATOR = 0x2581; // "▁"
const SPACE = 0x20;

/** Number of tokens the USE-lite graph reads per text. */
export const USE_LITE_MAX_TOKENS = 128;

export class UseTokenizer {
  /** children[node] maps a code point to the child node. */
  private readonly children: Map<number, number>[] = [new Map()];
  /** Vocabulary id ending at a node, or -1. */
  private pieceAt: number[] = [-1];
  private scoreAt: number[] = [0];
  /** UTF-16 length of every vocabulary piece (the reference backtracks by it). */
  private readonly pieceLength: Int32Array;
  /** Code points that occur after the first character of some piece. */
  private readonly innerChars = new Set<number>();
  /**
   * The ids of the pieces not yet in the trie, by their first code point.
   * The trie under a first character is built when a text first holds that
   * character: building all of it took ~25 ms, paid by every process that
   * embeds (a cold hybrid search), which reads a few dozen characters.
   */
  private readonly pending = new Map<number, number[]>();
  private best = new Float64Array(0);
  private words = new Int32Array(0);
  private symbols = new Int32Array(0);

  constructor(private readonly vocabulary: Vocabulary) {
    this.pieceLength = new Int32Array(vocabulary.length);
    vocabulary.forEach(([piece], id) => {
      this.pieceLength[id] = piece.length;
    });
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id++) {
      const piece = vocabulary[id]![0];
      let first: number | undefined;
      for (const ch of piece) {
        const cp = ch.codePointAt(0)!;
        if (first === undefined) first = cp;
        else this.innerChars.add(cp);
      }
      if (first === undefined) continue;
      const ids = this.pending.get(first);
      if (ids) ids.push(id);
      else this.pending.set(first, [id]);
    }
  }

  /** The trie node of the one-character prefix `cp`, adding its pending pieces first. */
  private rootChild(cp: number): number | undefined {
    const ids = this.pending.get(cp);
    if (ids !== undefined) {
      this.pending.delete(cp);
      // In id order, as when the whole trie was built at once.
      for (const id of ids) this.insert(id);
    }
    return this.children[0]!.get(cp);
  }

  private insert(id: number): void {
    const [piece, score] = this.vocabulary[id]!;
    let node = 0;
    for (const ch of piece) {
      const cp = ch.codePointAt(0)!;
      const kids = this.children[node]!;
      let next = kids.get(cp);
      if (next === undefined) {
        next = this.children.length;
        this.children.push(new Map());
        this.pieceAt.push(-1);
        this.scoreAt.push(0);
        kids.set(cp, next);
      }
      node = next;
    }
    // Duplicate pieces: the last one wins, as in the reference trie.
    this.pieceAt[node] = id;
    // vocab.json has a few null scores; the reference adds them as 0.
    this.scoreAt[node] = Number(score);
  }

  static async fromFile(vocabPath: string): Promise<UseTokenizer> {
    return new UseTokenizer(JSON.parse(await readFile(vocabPath, 'utf8')) as Vocabulary);
  }

  /** Token ids of `text`, at most `maxTokens` of them. */
  encode(text: string, maxTokens = USE_LITE_MAX_TOKENS): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0 || maxTokens <= 0) return [];
    const n = this.loadSymbols(normalized);
    if (this.best.length < n + 1) {
      this.best = new Float64Array(n + 1);
      this.words = new Int32Array(n + 1);
    } else {
      this.best.fill(0, 0, n + 1);
      this.words.fill(0, 0, n + 1);
    }
    const { best, words, symbols, children, pieceAt, scoreAt, innerChars } = this;
    let end = n;
    // Earliest position where a boundary could have maxTokens tokens before it.
    let nextCheck = maxTokens;
    for (let i = 0; i < n; i++) {
      if (i >= nextCheck && !innerChars.has(symbols[i]!)) {
        const count = this.countTokens(i);
        if (count >= maxTokens) {
          end = i;
          break;
        }
        nextCheck = i + (maxTokens - count);
      }
      const base = best[i]!;
      let matched = false;
      let node = this.rootChild(symbols[i]!);
      for (let j = i; node !== undefined; ) {
        const piece = pieceAt[node]!;
        j += 1;
        if (piece >= 0) {
          matched = true;
          const score = scoreAt[node]! + base;
          if (best[j] === 0 || score >= best[j]!) {
            best[j] = score;
            words[j] = piece;
          }
        }
        if (j >= n) break;
        node = children[node]!.get(symbols[j]!);
      }
      if (!matched) {
        // Unknown character: a one-symbol <unk> piece with score 0.
        const j = i + 1;
        if (best[j] === 0 || base >= best[j]!) {
          best[j] = base;
          words[j] = UNKNOWN_ID;
        }
      }
    }
    return this.backtrack(end, maxTokens);
  }

  /** Fills `symbols` with the code points of "▁" + text (spaces as "▁"); returns the count. */
  private loadSymbols(normalized: string): number {
    if (this.symbols.length < normalized.length + 1) {
      this.symbols = new Int32Array(normalized.length + 1);
    }
    const symbols = this.symbols;
    symbols[0] = SEPARATOR;
    let n = 1;
    for (let k = 0; k < normalized.length; k++) {
      let cp = normalized.charCodeAt(k);
      if (cp >= 0xd800 && cp <= 0xdbff && k + 1 < normalized.length) {
        const lo = normalized.charCodeAt(k + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
          k += 1;
        }
      }
      symbols[n++] = cp === SPACE ? SEPARATOR : cp;
    }
    return n;
  }

  /** Merged token count of the best path ending at `end`. */
  private countTokens(end: number): number {
    let count = 0;
    let previousUnknown = false;
    for (let iter = end; iter > 0; ) {
      const id = this.words[iter]!;
      if (!(previousUnknown && id === UNKNOWN_ID)) count += 1;
      previousUnknown = id === UNKNOWN_ID;
      iter -= this.pieceLength[id]!;
    }
    return count;
  }

  private backtrack(end: number, maxTokens: number): number[] {
    const reversed: number[] = [];
    let previousUnknown = false;
    for (let iter = end; iter > 0; ) {
      const id = this.words[iter]!;
      if (!(previousUnknown && id === UNKNOWN_ID)) reversed.push(id);
      previousUnknown = id === UNKNOWN_ID;
      iter -= this.pieceLength[id]!;
    }
    reversed.reverse();
    if (reversed.length > maxTokens) reversed.length = maxTokens;
    return reversed;
  }
}
