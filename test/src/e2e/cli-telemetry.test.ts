// `codesift index` and `codesift search` trace when asked to and load
// nothing when not: OTEL_TRACES_EXPORTER=console prints their spans on
// stderr (no collector), and without any OTEL_* variable a module-load hook
// sees no telemetry module at all (the cold start stays as it was).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

const TREE = {
  'src/retry.py':
    'def retry_request(call, attempts=3):\n    """Try the call again after waiting."""\n    return call()\n',
  'src/graph.ts':
    'export function addEdge(a: string, b: string): void {\n  edges.push([a, b]);\n}\n',
};

/** Prints, at exit, how many loaded module URLs match each marker. */
const HOOK = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => {
  process.stderr.write('LOADED ' + JSON.stringify({
    cli: loaded.filter((u) => u.includes('/services/cli/dist/')).length,
    telemetry: loaded.filter((u) => u.includes('/libs/telemetry/')).length,
    sdk: loaded.filter((u) => /@opentelemetry\\/(sdk-|exporter-)/.test(u)).length,
    usearch: loaded.filter((u) => u.includes('/node_modules/usearch/')).length,
  }) + '\\n');
});
`;

interface ConsoleSpan {
  span: string;
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

const spansIn = (stderr: string): ConsoleSpan[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{"span":'))
    .map((l) => JSON.parse(l) as ConsoleSpan);

/** This process's environment without any OTEL_* variable. */
function withoutOtel(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) env[k] = undefined;
  return env;
}

describe('CLI traces (end to end)', () => {
  let work: string;
  let root: string;
  let hook: string;
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-cli-otel-'));
    root = path.join(work, 'repo');
    writeTree(root, TREE);
    hook = path.join(work, 'hook.mjs');
    writeFileSync(hook, HOOK);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('OTEL_TRACES_EXPORTER=console: index and search print their spans on stderr', async () => {
    const console = { ...withoutOtel(), OTEL_TRACES_EXPORTER: 'console' };
    const indexed = await runCli(['index', root, '--quiet', '--no-vectors'], { env: console });
    assert.equal(indexed.code, 0, indexed.stderr);
    const [indexSpan] = spansIn(indexed.stderr).filter((s) => s.span === 'codesift index');
    assert.equal(indexSpan?.service, 'codesift-cli', indexed.stderr);

    const r = await runCli(['search', 'retry the request', '--json', '--limit', '2'], {
      cwd: root,
      env: console,
    });
    assert.equal(r.code, 0, r.stderr);
    // stdout is still the answer alone.
    assert.equal(JSON.parse(r.stdout).results[0].path, 'src/retry.py');
    const spans = spansIn(r.stderr);
    const rootSpan = spans.find((s) => s.span === 'codesift search');
    const keyword = spans.find((s) => s.span === 'search.keyword');
    assert.ok(rootSpan && keyword, r.stderr);
    assert.equal(rootSpan.parentSpanId, undefined);
    assert.equal(keyword.traceId, rootSpan.traceId);
    assert.equal(keyword.parentSpanId, rootSpan.spanId);
  });

  test('without OTEL_* variables `codesift search` loads no telemetry module', async () => {
    const loads = async (env: NodeJS.ProcessEnv) => {
      const r = await runCli(['search', 'addEdge', '--json'], {
        cwd: root,
        env: { ...env, NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` },
      });
      assert.equal(r.code, 0, r.stderr);
      const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
      assert.ok(line, r.stderr);
      return JSON.parse(line.slice('LOADED '.length)) as {
        cli: number;
        telemetry: number;
        sdk: number;
        usearch: number;
      };
    };
    const off = await loads(withoutOtel());
    assert.ok(off.cli > 0, 'the hook saw the CLI load');
    assert.equal(off.telemetry, 0);
    assert.equal(off.sdk, 0);
    // Nor the HNSW library (a native addon, ~15 ms of cold start): a keyword
    // index has no graph to search.
    assert.equal(off.usearch, 0);
    // The same hook does see them once tracing is asked for.
    const on = await loads({ ...withoutOtel(), OTEL_TRACES_EXPORTER: 'console' });
    assert.ok(on.telemetry > 0 && on.sdk > 0, JSON.stringify(on));
  });
});
