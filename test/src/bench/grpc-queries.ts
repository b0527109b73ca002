/**
 * The gRPC benchmark's query mix over its synthetic repository of `modules`
 * modules: identifiers and natural-language questions in the proportions a
 * mixed workload has. The n-th query; the five questions repeat every ten.
 */
export function mixedQuery(n: number, modules: number): string {
  const i = (n * 7919) % modules;
  const forms = [
    `OrderService${i - (i % 4)}`,
    `parseAmount${i - (i % 4)}`,
    `validate_payload_${i - (i % 4) + 1}`,
    `NewStore${i - (i % 4) + 2}`,
    'where are orders added and listeners notified',
    'concurrency safe key value store',
    'how do I configure request timeouts',
    'check that a payload has the required fields',
    'parse a money amount from text',
    `Handler${i - (i % 4) + 1} get returns stored value as JSON`,
  ];
  return forms[n % forms.length]!;
}
