import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SYNONYMS, parseQuery } from '@codesift/query';
import { DEFAULT_PLANNER_CONFIG, NO_PLANNING, planQuery, planText } from './plan-query.js';
import type { PlannerConfig, PlanOptions, QueryPlan } from './types.js';
import { EMBED_MAX_CHARS } from './vector-text.js';

const CONFIG: PlannerConfig = { ...DEFAULT_PLANNER_CONFIG, synonyms: DEFAULT_SYNONYMS };

function plan(query: string, options: PlanOptions = {}, config = CONFIG): QueryPlan {
  return planQuery(parseQuery(query), options, config);
}

function report(): string {
  const trace =
    'TypeError: Cannot read properties of undefined (reading "push")\n' +
    '    at Graph.addEdge (/app/src/graph/graph.ts:14:17)\n' +
    '    at loadEdges (/app/src/graph/load.ts:33:9)\n' +
    '    at Object.<anonymous> (/app/node_modules/runner/index.js:5:1)\n';
  const prose = 'After the upgrade the importer crashes on every second file. ';
  return `Importer crash on large graphs\n\n${prose.repeat(40)}\n${trace.repeat(60)}${prose.repeat(120)}`.slice(
    0,
    20 * 1024,
  );
}

describe('planQuery', () => {
  it('skips the vector side for an identifier-only query, and says so', () => {
    const p = plan('D40');
    assert.equal(p.vector.run, false);
    assert.equal(p.vector.fallbackOnEmpty, true);
    assert.equal(p.input.identifierOnly, true);
    assert.match(p.reasons.join('\n'), /vector: skipped, the query is identifiers only/);
    assert.deepEqual(p.anchors.list, [
      { text: 'D40', kind: 'code', caseSensitive: true, weight: 1 },
    ]);
  });

  it('runs the vector side on the user words for "Tell me about D40"', () => {
    const p = plan('Tell me about D40');
    assert.equal(p.vector.run, true);
    assert.equal(p.vector.text, 'Tell me about D40');
    assert.equal(p.vector.condensed, false);
    assert.deepEqual(
      p.anchors.list.map((a) => a.text),
      ['D40'],
    );
    // Filler words are not searched; D40 and its part are.
    assert.deepEqual(
      p.keyword.terms.map((t) => [t.term, t.weight]),
      [
        ['d40', 1],
        ['40', 0.5],
      ],
    );
  });

  it('keeps "30 CFR 75.1725" one code anchor, searched by its parts', () => {
    const p = plan('30 CFR 75.1725');
    assert.deepEqual(
      p.anchors.list.map((a) => [a.text, a.kind, a.caseSensitive]),
      [['30 CFR 75.1725', 'code', true]],
    );
    assert.deepEqual(
      p.keyword.terms.filter((t) => t.weight === 1).map((t) => t.term),
      ['30', 'cfr', '75.1725'],
    );
    assert.equal(p.vector.run, false);
  });

  it('weighs expansion terms below the user words, and only on the keyword side', () => {
    const p = plan('Search function');
    const byTerm = new Map(p.keyword.terms.map((t) => [t.term, t]));
    assert.equal(byTerm.get('search')!.weight, 1);
    assert.equal(byTerm.get('function')!.weight, 1);
    assert.equal(byTerm.get('engine')!.source, 'synonym');
    assert.equal(byTerm.get('func')!.source, 'synonym');
    for (const t of p.keyword.terms) {
      if (t.source !== 'original') assert.ok(t.weight < 1, `${t.term} ${t.weight}`);
    }
    assert.equal(p.vector.text, 'Search function');
    assert.equal(p.keyword.expansion, true);
  });

  it('without expansion sends the analyzer terms at weight 1', () => {
    const p = plan('Search function OllamaEmbedder', { expansion: false });
    assert.equal(p.keyword.expansion, false);
    assert.deepEqual(
      p.keyword.terms.map((t) => [t.term, t.weight]),
      [
        ['search', 1],
        ['function', 1],
        ['ollamaembedder', 1],
        ['ollama', 1],
        ['embedder', 1],
      ],
    );
    assert.match(p.reasons.join('\n'), /expansion off/);
  });

  it('a request table extends the synonyms (config decides the table)', () => {
    const p = plan('Search', {}, { ...CONFIG, synonyms: { search: ['grep'] } });
    assert.deepEqual(
      p.keyword.terms.map((t) => t.term),
      ['search', 'grep'],
    );
  });

  it('fusion by vector contrast: linear fusion with a vector side, when switched on (off by default)', () => {
    const on = plan('how are edges added', { vectorContrast: true });
    assert.equal(on.fusion.contrast, true);
    assert.ok(
      on.reasons.some((r) =>
        r.startsWith("fusion: the vector weight scales with its list's contrast"),
      ),
    );
    const off = plan('how are edges added');
    assert.equal(off.fusion.contrast, false);
    assert.ok(
      off.reasons.includes(
        'fusion: the vector weight as planned, whatever its list looks like (vector contrast off)',
      ),
    );
    // Nothing to scale without a vector side, nor under RRF (ranks only).
    const keywordOnly = { vectorContrast: true, keywordOnly: true };
    assert.equal(plan('how are edges added', keywordOnly).fusion.contrast, false);
    assert.equal(
      plan('how are edges added', { vectorContrast: true, fusion: 'rrf' }).fusion.contrast,
      false,
    );
  });

  it('fusion: linear 0.4 by default, RRF with its scale, adaptive from specificity', () => {
    const linear = plan('how are edges added');
    assert.deepEqual(linear.fusion, {
      method: 'linear',
      combiner: 'linear',
      vectorWeight: 0.4,
      rrfK: null,
      scale: 1,
      contrast: false,
    });
    assert.equal(plan('how are edges added', { vectorWeight: 0.6 }).fusion.vectorWeight, 0.6);
    const rrf = plan('how are edges added', { fusion: 'rrf' });
    assert.deepEqual(rrf.fusion, {
      method: 'rrf',
      combiner: 'rrf',
      vectorWeight: null,
      rrfK: 60,
      scale: 2 / 61,
      contrast: false,
    });
    // Boosts are in the fusion's scale: 1.5 scales for an identifier-only query's definitions, else 1.
    assert.equal(rrf.definitions.boost, 2 / 61);
    assert.equal(plan('server.WithTimeout', { fusion: 'rrf' }).definitions.boost, (2 / 61) * 1.5);
    assert.equal(
      plan(`${'why is parse_amount wrong '.repeat(10)}`, { fusion: 'rrf' }).definitions.boost,
      2 / 61,
    );
    assert.equal(plan('Tell me about D40', { fusion: 'rrf' }).anchors.maxBoost, 1 / 61);
    // Specificity 0 -> 0.8; "Tell me about D40" (4/7) -> 0.8 - 0.6 * 4/7 = 0.4571; a bare identifier -> 0.2.
    assert.equal(plan('how are edges added', { fusion: 'adaptive' }).fusion.vectorWeight, 0.8);
    const mixed = plan('Tell me about D40', { fusion: 'adaptive' }).fusion;
    assert.equal(mixed.vectorWeight, 0.4571);
    assert.equal(mixed.combiner, 'linear');
    assert.equal(plan('D40', { fusion: 'adaptive' }).fusion.vectorWeight, 0.2);
    assert.equal(plan('x', {}, { ...CONFIG, fusion: 'adaptive' }).fusion.method, 'adaptive');
  });

  it('anchors: +0.5 for linear fusion, none when switched off', () => {
    assert.equal(plan('Tell me about D40').anchors.maxBoost, 0.5);
    const off = plan('Tell me about D40', { anchors: false });
    assert.equal(off.anchors.enabled, false);
    assert.deepEqual(off.anchors.list, []);
    assert.deepEqual(
      plan('"pump station" near addEdge').anchors.list.map((a) => [
        a.text,
        a.kind,
        a.caseSensitive,
      ]),
      [
        ['pump station', 'phrase', false],
        ['addEdge', 'identifier', true],
      ],
    );
  });

  it('focus: inferred, overridden by the request, and switchable', () => {
    const tests = plan('how is the scanner tested');
    assert.equal(tests.focus.focus, 'tests');
    assert.equal(tests.focus.source, 'inferred');
    assert.equal(tests.focus.scoring, true);
    assert.equal(tests.focus.outOfFocusMultiplier, 0.5);
    const code = plan('how does the scanner skip binary files');
    assert.equal(code.focus.focus, 'implementation');
    const forced = plan('how is the scanner tested', { focus: 'implementation' });
    assert.equal(forced.focus.focus, 'implementation');
    assert.equal(forced.focus.source, 'request');
    assert.equal(plan('how is the scanner tested', { focus: 'all' }).focus.scoring, false);
    assert.equal(plan('how is the scanner tested', { focusScoring: false }).focus.scoring, false);
    assert.equal(
      plan('scanner', {}, { ...CONFIG, focusMultiplier: 0.25 }).focus.outOfFocusMultiplier,
      0.25,
    );
  });

  it('merges the query filters into the request filter', () => {
    const p = plan('retry backoff lang:go -path:vendor', {
      filter: { languages: ['python'], exclude: ['**/*.test.ts'] },
    });
    assert.deepEqual(p.filter, {
      languages: ['python', 'go'],
      exclude: ['**/*.test.ts', 'vendor'],
    });
    assert.equal(p.vector.text, 'retry backoff');
    assert.deepEqual(plan('x -lang:go').filter, { excludeLanguages: ['go'] });
  });

  it('candidate depths follow the limit and collapsing', () => {
    assert.equal(plan('graph').keyword.depth, 50);
    assert.equal(plan('graph', { limit: 20 }).keyword.depth, 100);
    const files = plan('graph', { limit: 20, collapseFiles: true });
    assert.equal(files.vector.depth, 300);
    assert.equal(files.boostDepth, 300);
    assert.equal(plan('graph', { limit: 100, collapseFiles: true }).boostDepth, 500);
  });

  it('skips the vector side when asked or when there is none', () => {
    assert.equal(plan('how are edges added', { keywordOnly: true }).vector.run, false);
    const none = plan('how are edges added', { vectorAvailable: false });
    assert.equal(none.vector.run, false);
    assert.equal(none.vector.fallbackOnEmpty, false);
  });

  it('embeds a bounded digest of a 20 KB report', () => {
    const text = report();
    const p = plan(text);
    assert.equal(p.vector.run, true);
    assert.equal(p.vector.condensed, true);
    assert.ok(p.vector.text.length <= EMBED_MAX_CHARS, String(p.vector.text.length));
    assert.ok(p.vector.text.startsWith('Importer crash on large graphs'));
    assert.match(p.vector.text, /TypeError: Cannot read properties of undefined/);
    assert.match(p.vector.text, /Graph\.addEdge/);
    assert.doesNotMatch(p.vector.text, /anonymous/, 'external frames are left out');
  });

  it('is pure: the same input gives the same plan, and the parse is not changed', () => {
    for (const q of ['D40', 'Tell me about D40', 'how is the scanner tested lang:go', report()]) {
      const parsed = parseQuery(q);
      const before = JSON.stringify(parsed);
      const a = planQuery(parsed, { fusion: 'adaptive' }, CONFIG);
      const b = planQuery(parsed, { fusion: 'adaptive' }, CONFIG);
      assert.deepEqual(a, b);
      assert.equal(JSON.stringify(parsed), before);
    }
  });

  it('round-trips through JSON unchanged', () => {
    for (const q of [
      'D40',
      'Tell me about D40',
      '30 CFR 75.1725',
      '"exact words" addEdge path:src/** -lang:go',
      report(),
    ]) {
      for (const fusion of ['rrf', 'linear', 'adaptive'] as const) {
        const p = plan(q, { fusion });
        assert.deepEqual(JSON.parse(JSON.stringify(p)), p, `${fusion}: ${q.slice(0, 30)}`);
      }
    }
  });
});

describe('planText: rewrite and planning switches', () => {
  const env =
    'Merge loses attrs\nThe attrs of the result are shared.\n\nINSTALLED VERSIONS\ncommit: None\nnumpy: 1.19.4\npandas: 1.1.4\npytest: 6.2.1\n';

  it('cuts boilerplate before parsing and records it; off keeps the text', () => {
    const on = planText(env, {}, CONFIG);
    assert.equal(on.plan.rewrite.boilerplate, true);
    assert.equal(on.plan.rewrite.removed[0]!.kind, 'environment');
    assert.equal(on.plan.rewrite.originalChars, env.length);
    assert.doesNotMatch(on.parsed.text, /numpy/);
    assert.equal(on.plan.focus.focus, 'implementation');
    assert.match(on.plan.reasons.join('\n'), /rewrite: cut \d+ chars of environment/);
    const off = planText(env, { boilerplate: false }, CONFIG);
    assert.deepEqual(off.plan.rewrite.removed, []);
    assert.match(off.parsed.text, /numpy/);
  });

  it("a title's code span names a definition, said in the reasons; codeSpans off, it does not", () => {
    const title = '`polyval` with timedelta64 coordinates produces wrong results';
    const on = plan(title);
    assert.deepEqual(on.definitions.identifiers, ['polyval']);
    assert.match(
      on.reasons.join('\n'),
      /defining polyval get \+1 \(polyval: written as code in backticks\)/,
    );
    const off = plan(title, { codeSpans: false });
    assert.deepEqual(off.definitions.identifiers, []);
    assert.doesNotMatch(off.reasons.join('\n'), /backticks/);
    // A code-shaped word in backticks needs no span to be a name: nothing is said.
    assert.doesNotMatch(plan('`is_zero` is wrong').reasons.join('\n'), /backticks/);
  });

  it('NO_PLANNING turns every planner feature off', () => {
    const p = planText('where is addEdge defined', NO_PLANNING, CONFIG).plan;
    assert.equal(p.keyword.expansion, false);
    assert.equal(p.anchors.enabled, false);
    assert.equal(p.definitions.enabled, false);
    assert.deepEqual(p.definitions.identifiers, []);
    assert.equal(p.focus.scoring, false);
    assert.equal(p.focus.docMultiplier, 1);
    assert.equal(p.fusion.method, 'linear');
    assert.equal(p.rewrite.boilerplate, false);
    assert.equal(p.files.score, 'best');
  });

  it('file scores: best by default, auto decays only for long queries', () => {
    assert.equal(plan('edges', { collapseFiles: true }).files.score, 'best');
    const long = `Graph import crashes\n${'the importer drops edges '.repeat(30)}`;
    assert.equal(plan(long, { fileScore: 'auto' }).files.score, 'decayed');
    assert.equal(plan('edges', { fileScore: 'auto' }).files.score, 'best');
    assert.equal(plan('edges', { fileScore: 'decayed' }).files.score, 'decayed');
  });

  it('cuts links with the boilerplate, keeping the file a browser link names', () => {
    const q =
      'Default modifiers for interfaces\nCloses https://github.com/square/javapoet/issues/110, ' +
      'broken in https://github.com/square/javapoet/blob/abc123/src/main/TypeSpec.java#L40';
    const on = planText(q, {}, CONFIG);
    assert.deepEqual(
      on.plan.rewrite.removed.map((r) => [r.kind, r.chars]),
      [
        ['link', 45],
        ['link', 51],
      ],
    );
    const terms = on.plan.keyword.terms.map((t) => t.term);
    for (const gone of ['github', 'javapoet', 'issues', '110'])
      assert.ok(!terms.includes(gone), gone);
    assert.ok(terms.includes('typespec'), 'the linked file is still searched');
    assert.match(on.plan.reasons.join('\n'), /rewrite: cut \d+ chars of link/);
    // "github" in a link no longer counts as naming repository metadata.
    assert.equal(on.plan.focus.metadataMultiplier, 0.2);

    const off = planText(q, { boilerplate: false }, CONFIG);
    assert.deepEqual(off.plan.rewrite.removed, []);
    assert.ok(off.plan.keyword.terms.some((t) => t.term === 'javapoet'));
    // Nothing but a link: searched as it is rather than as nothing.
    const only = planText('https://github.com/o/r/issues/7', {}, CONFIG);
    assert.deepEqual(only.plan.rewrite.removed, []);
    assert.ok(only.plan.keyword.terms.length > 0);
  });

  it('prose docs are demoted for implementation questions unless docs are asked for', () => {
    assert.equal(plan('how are edges added').focus.docMultiplier, 0.5);
    assert.equal(plan('how are edges added', { docDemotion: false }).focus.docMultiplier, 1);
    assert.equal(plan('readme section on edges').focus.docMultiplier, 1);
    assert.equal(plan('how is the graph tested').focus.docMultiplier, 1);
  });
});

/**
 * One pasted trace per runtime whose frames name functions, the function
 * its innermost user frame names (runtime and dependency frames skipped;
 * Python prints it last) and callers that must not share its boost.
 */
const FAILING_FRAMES: { runtime: string; trace: string; failing: string; callers: string[] }[] = [
  {
    runtime: 'python',
    trace:
      'Traceback (most recent call last):\n  File "/usr/lib/python3.12/runpy.py", line 198, in _run_module_as_main\n  File "app/cli.py", line 12, in main\n    run(args)\n  File "app/orders.py", line 40, in checkout\n    total = order_total(items)\n  File "app/pricing.py", line 8, in order_total\n    return sum(i.price for i in items)\n  File "/usr/lib/python3.12/site-packages/attr/_make.py", line 3, in price\nAttributeError: \'NoneType\' object has no attribute \'price\'',
    failing: 'order_total',
    callers: ['checkout', 'main'],
  },
  {
    runtime: 'javascript',
    trace:
      "TypeError: Cannot read properties of undefined (reading 'push')\n    at Graph.addEdge (/app/src/graph/graph.ts:14:17)\n    at loadEdges (/app/src/graph/load.ts:33:9)\n    at Object.<anonymous> (/app/node_modules/runner/index.js:5:1)",
    failing: 'Graph.addEdge',
    callers: ['loadEdges'],
  },
  {
    runtime: 'jvm',
    trace:
      'Exception in thread "main" java.lang.NullPointerException: name\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:233)\n\tat com.acme.shop.Cart.add(Cart.java:5)\n\tat com.acme.shop.Checkout.run(Checkout.java:17)',
    failing: 'Cart.add',
    callers: ['Checkout.run'],
  },
  {
    runtime: 'go',
    trace:
      'panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\ngithub.com/acme/shop/cart.(*Cart).Total(0xc000010000)\n\t/home/u/shop/cart/cart.go:21 +0x1d\ngithub.com/acme/shop/cmd.run()\n\t/home/u/shop/cmd/run.go:9 +0x25\nmain.main()\n\t/home/u/shop/main.go:5 +0x17',
    failing: 'Cart.Total',
    callers: ['cmd.run'],
  },
  {
    runtime: 'rust',
    trace:
      "thread 'main' panicked at src/cart.rs:21:9:\nindex out of bounds: the len is 3 but the index is 3\nstack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n   2: shop::cart::Cart::total\n             at ./src/cart.rs:21:9\n   3: shop::checkout\n             at ./src/main.rs:9:5",
    failing: 'Cart::total',
    callers: ['shop::checkout'],
  },
  {
    runtime: 'dotnet',
    trace:
      'Unhandled exception. System.InvalidOperationException: Sequence contains no elements\n   at System.Linq.ThrowHelper.ThrowNoElementsException()\n   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source)\n   at Shop.Billing.InvoiceCalculator.Total(IEnumerable`1 lines) in /src/Shop/Billing/InvoiceCalculator.cs:line 8\n   at Shop.Billing.InvoiceService.Send(Invoice invoice) in /src/Shop/Billing/InvoiceService.cs:line 9',
    failing: 'Shop.Billing.InvoiceCalculator.Total',
    callers: ['Shop.Billing.InvoiceService.Send'],
  },
  {
    runtime: 'ruby',
    trace:
      "app/models/shop/order.rb:9:in 'Shop::Order#total': undefined method 'price' for nil (NoMethodError)\n\tfrom app/models/shop/order.rb:16:in 'Shop::Order#checkout'\n\tfrom spec/shop/order_spec.rb:5:in 'block (2 levels) in <top (required)>'",
    failing: 'Shop.Order.total',
    callers: ['Shop.Order.checkout'],
  },
  {
    runtime: 'php',
    trace:
      'PHP Fatal error:  Uncaught App\\Billing\\AmountError: Amount must be positive in /var/www/src/Billing/InvoiceCalculator.php:10\nStack trace:\n#0 /var/www/src/Billing/InvoiceController.php(11): App\\Billing\\InvoiceCalculator->total(-5)\n#1 /var/www/public/index.php(20): App\\Billing\\InvoiceController->show(7)\n#2 {main}\n  thrown in /var/www/src/Billing/InvoiceCalculator.php on line 10',
    failing: 'InvoiceCalculator.total',
    callers: ['InvoiceController.show'],
  },
  {
    runtime: 'swift',
    trace:
      'Fatal error: Index out of range\nThread 0 Crashed:\n0   libswiftCore.dylib            0x00000001a2b3c4d4 $ss18_fatalErrorMessage + 120\n1   Shop                          0x0000000100a1b2c3 Cart.total() + 88 (Cart.swift:21)\n2   Shop                          0x0000000100a1b3d4 Checkout.run() + 40 (Checkout.swift:9)',
    failing: 'Cart.total',
    callers: ['Checkout.run'],
  },
  {
    runtime: 'native',
    trace:
      '#0  geo::Circle::area (this=0x0) at src/geo/shape.cc:7\n#1  0x00005555555551d2 in geo::total_area (shapes=...) at src/geo/shape.cc:22\n#2  0x0000555555555230 in main () at src/main.cc:9',
    failing: 'geo.Circle.area',
    callers: ['geo.total_area'],
  },
  {
    runtime: 'lua',
    trace:
      "lua: lua/cart.lua:7: attempt to perform arithmetic on a nil value (field 'price')\nstack traceback:\n\t[C]: in function 'error'\n\tlua/cart.lua:7: in function 'cart.total'\n\tlua/cart.lua:13: in function 'cart.checkout'\n\tmain.lua:4: in main chunk\n\t[C]: in ?",
    failing: 'cart.total',
    callers: ['cart.checkout'],
  },
  {
    runtime: 'kotlin (JVM)',
    trace:
      'Exception in thread "main" java.lang.IllegalArgumentException: quantity must be positive\n\tat com.acme.shop.Cart.add(Cart.kt:5)\n\tat com.acme.shop.Cart.add$default(Cart.kt:4)\n\tat com.acme.shop.MainKt.main(Main.kt:7)',
    failing: 'Cart.add',
    callers: ['MainKt.main'],
  },
];

describe('a pasted trace: the function it failed in is the preferred definition', () => {
  for (const c of FAILING_FRAMES) {
    it(`${c.runtime}: ${c.failing} first, its callers at a lesser boost`, () => {
      const p = plan(c.trace);
      assert.equal(p.definitions.failingFunction, c.failing);
      assert.equal(p.definitions.identifiers[0], c.failing);
      const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
      for (const caller of c.callers) {
        assert.ok(
          !lower(p.definitions.identifiers).includes(caller.toLowerCase()),
          `${caller} in ${JSON.stringify(p.definitions.identifiers)}`,
        );
      }
      assert.ok(p.definitions.callerShare > 0 && p.definitions.callerShare < 1);
      assert.match(
        p.reasons.join('\n'),
        new RegExp(`the trace failed in ${c.failing.replace(/[.$]/g, '\\$&')}`),
      );
    });
  }

  it("the trace's other code words are the callers, at a lesser share of the boost", () => {
    const dotnet = FAILING_FRAMES.find((c) => c.runtime === 'dotnet')!;
    const p = plan(dotnet.trace);
    assert.ok(
      p.definitions.callers.includes('Shop.Billing.InvoiceService.Send'),
      JSON.stringify(p.definitions.callers),
    );
    assert.ok(!p.definitions.callers.includes(dotnet.failing));
    assert.equal(plan('parse_amount returns the wrong sign').definitions.callers.length, 0);
  });

  it('python: a protocol hook printed without its class (__getattr__) is not where it failed', () => {
    const p = plan(
      'Traceback (most recent call last):\n  File "app/merge.py", line 9, in merge_values\n    v = obj.items()\n  File "app/common.py", line 3, in __getattr__\n    raise AttributeError(name)\nAttributeError: items',
    );
    assert.equal(p.definitions.failingFunction, 'merge_values');
  });

  it('the failing frame’s file and line are in the plan, for an index without its symbol', () => {
    const swift = FAILING_FRAMES.find((c) => c.runtime === 'swift')!;
    assert.deepEqual(plan(swift.trace).definitions.failingLocation, {
      path: 'Cart.swift',
      line: 21,
    });
    assert.equal(plan('parse_amount returns the wrong sign').definitions.failingLocation, null);
  });

  it('code words written outside the trace keep their boost', () => {
    const dotnet = FAILING_FRAMES.find((c) => c.runtime === 'dotnet')!;
    const p = plan(`Totals break since ApplyDiscount changed:\n${dotnet.trace}`);
    assert.deepEqual(p.definitions.identifiers, [dotnet.failing, 'ApplyDiscount']);
  });

  it('without a user frame naming a function there is no failing function', () => {
    const p = plan('./deploy.sh: line 12: upload_artifacts: command not found');
    assert.equal(p.definitions.failingFunction, null);
    const q = plan('parse_amount returns the wrong sign');
    assert.equal(q.definitions.failingFunction, null);
    assert.deepEqual(q.definitions.identifiers, ['parse_amount']);
  });
});
