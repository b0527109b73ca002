import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cooccurrence } from '@codesift/stores';
import {
  BRIDGE_TERM_WEIGHT,
  type BridgeCandidate,
  MAX_BRIDGE_TERMS,
  MIN_JOINT,
  rankBridgeTerms,
} from './bridge-score.js';

const cand = (name: string, doc = ''): BridgeCandidate => ({
  name,
  doc,
  term: name.toLowerCase(),
});

/** 1,000 chunks; each word in 20, each identifier in 10, the joint counts given. */
function counts(
  joint: Record<string, Record<string, number>>,
  df: Record<string, number> = {},
): Cooccurrence {
  const base: Record<string, number> = {};
  for (const [term, words] of Object.entries(joint)) {
    base[term] = 10;
    for (const w of Object.keys(words)) base[w] = 20;
  }
  return { chunks: 1000, df: { ...base, ...df }, joint };
}

const query = { stems: ['retry', 'request', 'timeout'], words: ['retry', 'request', 'timeout'] };

describe('rankBridgeTerms', () => {
  it('ranks name parts over doc words, and needs two of the query words', () => {
    const out = rankBridgeTerms(
      query,
      [cand('retryRequest'), cand('sendRequest', 'Sends it; a retry follows.'), cand('retry')],
      null,
    );
    // retry: one word only; retryRequest: two name parts; sendRequest: a name part and a doc word.
    assert.deepEqual(
      out.map((t) => t.name),
      ['retryRequest', 'sendRequest'],
    );
    assert.equal(out[0]!.weight, BRIDGE_TERM_WEIGHT);
    assert.ok(out[1]!.weight < out[0]!.weight && out[1]!.weight >= BRIDGE_TERM_WEIGHT / 2);
    assert.match(out[1]!.why, /name request; doc retry/);
  });

  it('counts the query words an identifier occurs with more often than chance', () => {
    const c = counts(
      {
        // retryDelay: in 10 chunks, 8 of them with "timeout" (in 20): far above chance.
        retrydelay: { timeout: 8 },
        // requestBody: in 50 chunks, 1 with "timeout": what chance gives, not counted.
        requestbody: { timeout: 1 },
      },
      { requestbody: 50 },
    );
    const out = rankBridgeTerms(query, [cand('retryDelay'), cand('requestBody')], c);
    assert.deepEqual(
      out.map((t) => t.name),
      ['retryDelay'],
    );
    assert.match(out[0]!.why, /^name retry; with timeout 0\.7\d+$/);
  });

  it('needs MIN_JOINT shared chunks: one is as often chance, and the index-time table keeps no such pair', () => {
    // retryDelay in 1 chunk of 1,000, with "timeout" (in 1): the PMI is the highest there is.
    const once = counts({ retrydelay: { timeout: MIN_JOINT - 1 } }, { retrydelay: 1, timeout: 1 });
    assert.deepEqual(rankBridgeTerms(query, [cand('retryDelay')], once), []);
    const twice = counts({ retrydelay: { timeout: MIN_JOINT } }, { retrydelay: 2, timeout: 2 });
    assert.deepEqual(
      rankBridgeTerms(query, [cand('retryDelay')], twice).map((t) => t.name),
      ['retryDelay'],
    );
  });

  it('needs a name part shared with the query', () => {
    const out = rankBridgeTerms(
      query,
      [cand('backoffDelay', 'Waits before the next retry of a request.')],
      counts({ backoffdelay: { timeout: 8 } }),
    );
    assert.deepEqual(out, []);
  });

  it('bridges names only, not a doc line a parser reported as one', () => {
    assert.deepEqual(rankBridgeTerms(query, [cand('retry the request')], null), []);
  });

  it('leaves out a word co-occurring with an identifier that holds it as a name part', () => {
    // retryRequest holds "retry": its co-occurrence with "retry" proves nothing more.
    const c = counts({ retryrequest: { retry: 10 } });
    const out = rankBridgeTerms(query, [cand('retryRequest')], c);
    assert.equal(out.length, 1);
    assert.doesNotMatch(out[0]!.why, /with/);
  });

  it('drops identifiers found nowhere, in too many chunks, or already searched', () => {
    const c = counts(
      { retryrequest: {}, requesttimeout: {}, retrytimeout: {} },
      { retryrequest: 0, requesttimeout: 900 },
    );
    const out = rankBridgeTerms(
      query,
      [cand('retryRequest'), cand('requestTimeout'), cand('retryTimeout')],
      c,
      new Set(['retrytimeout']),
    );
    assert.deepEqual(out, []);
  });

  it('keeps the best MAX_BRIDGE_TERMS, each identifier once', () => {
    const names = [
      'retryRequestTimeout',
      'retryRequest',
      'requestTimeout',
      'retryTimeout',
      'retryRequest',
    ];
    const out = rankBridgeTerms(
      query,
      names.map((n) => cand(n)),
      null,
    );
    assert.equal(out.length, MAX_BRIDGE_TERMS);
    assert.equal(out[0]!.name, 'retryRequestTimeout');
    assert.equal(new Set(out.map((t) => t.term)).size, out.length);
  });

  it('bridges nothing for a query without words', () => {
    assert.deepEqual(rankBridgeTerms({ stems: [], words: [] }, [cand('retryRequest')], null), []);
  });
});
