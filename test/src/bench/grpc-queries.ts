/**
 * The gRPC benchmark's query mix over its synthetic repository of `modules`
 * modules: identifiers and natural-language questions in the proportions a
 * mixed workload has (four identifier forms, five questions and one
 * identifier among words, in every ten queries).
 *
 * The questions are put together from phrase pools (questionFor), about
 * 2,000 of them: the mix once cycled through five fixed questions, so a
 * server remembering anything per question text (a query-vector cache did)
 * was measured on repeats a real workload does not make.
 */
export function mixedQuery(n: number, modules: number): string {
  const i = (n * 7919) % modules;
  const base = i - (i % 4);
  switch (n % 10) {
    case 0:
      return `OrderService${base}`;
    case 1:
      return `parseAmount${base}`;
    case 2:
      return `validate_payload_${base + 1}`;
    case 3:
      return `NewStore${base + 2}`;
    case 9:
      return `Handler${base + 1} get returns stored value as JSON`;
    default:
      return questionFor(n);
  }
}

const OPENERS = ['where are', 'how are', 'find where', 'which code has', 'show me how'];
const SUBJECTS = [
  'orders',
  'payloads',
  'money amounts',
  'stored values',
  'requests',
  'listeners',
  'keys',
  'fields',
];
const ACTIONS = [
  'added',
  'validated',
  'parsed from text',
  'removed',
  'notified',
  'saved in a store',
  'checked for required fields',
  'returned as JSON',
];
const TAILS = [
  '',
  ' and listeners notified',
  ' with request timeouts',
  ' safely under concurrency',
  ' by key',
  ' for each tenant',
];

/** The question of the n-th query: one phrase of each pool, picked by a hash of n. */
export function questionFor(n: number): string {
  // Knuth's multiplicative hash spreads consecutive n over the pools.
  let h = Math.imul(n + 1, 0x9e3779b1) >>> 0;
  const pick = (pool: readonly string[]): string => {
    const p = pool[h % pool.length]!;
    h = Math.floor(h / pool.length);
    return p;
  };
  return `${pick(OPENERS)} ${pick(SUBJECTS)} ${pick(ACTIONS)}${pick(TAILS)}`;
}
