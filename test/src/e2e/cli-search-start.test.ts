/**
 * `codesift search` starts quickly because it loads only what the search
 * needs: the model (onnxruntime) only when the plan has a vector side, and
 * none of the indexing, serving, tracing or LLM client code. Start-up time
 * is too noisy on a shared machine to test, so this checks the module graph
 * itself: the real CLI runs with a resolve hook that records every module
 * it loads.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cliBin, cliBundleDir, collect, modulesBehind, runCli } from '../support/cli.js';
import { writeTree } from '../support/tree.js';

// A synchronous resolve hook (module.registerHooks) sees what require()
// loads too: the stores and the embedder require their CommonJS packages
// (better-sqlite3, onnxruntime-node) rather than import them.
const REGISTER = `import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(process.env.CODESIFT_TEST_MODULE_LOG, resolved.url + '\\n');
    return resolved;
  },
});`;

/** Code a search never needs (onnxruntime is checked per case). */
const NEVER = [
  /\/libs\/(pipeline|chunking|grpc|mcp-bridge|telemetry|engine-pool)\//,
  /\/libs\/scanner\/dist\/index\.js$/,
  /\/libs\/llm\/dist\/(index|client)\.js$/,
  /\/node_modules\/(@opentelemetry|@grpc|@modelcontextprotocol|web-tree-sitter|chokidar|ollama|ajv)\//,
  // The model's converter and its protobuf code: only when the build wrote no model file.
  /\/node_modules\/@bufbuild\//,
];
const MODEL = /\/node_modules\/onnxruntime-node\/|\/libs\/models\//;

const FILES: Record<string, string> = {
  'src/retry.ts': `/** Retries a request with exponential backoff between attempts. */
export async function retryWithBackoff<T>(call: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await call();
    } catch (err) {
      if (i + 1 >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 2 ** i * 100));
    }
  }
}
`,
  'src/graph.ts': `export class Graph {
  private edges: [string, string][] = [];
  addEdge(from: string, to: string): void {
    this.edges.push([from, to]);
  }
}
`,
};

/** Runs `codesift search <args>` and returns the module URLs it loaded, bundle files as they are. */
async function urlsLoadedBySearch(dir: string, args: string[]): Promise<string[]> {
  const log = path.join(dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, cliBin, 'search', ...args],
    {
      env: { ...process.env, NO_COLOR: '1', CODESIFT_TEST_MODULE_LOG: log },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const r = await collect(child, 120_000);
  assert.equal(r.code, 0, r.stderr);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** The compiled modules `codesift search <args>` loaded, read through the bundle's list when it ran. */
async function loadedBySearch(dir: string, args: string[]): Promise<string[]> {
  const urls = modulesBehind(await urlsLoadedBySearch(dir, args));
  // The hook saw the search itself: an empty or partial log would pass every check below.
  assert.ok(
    urls.some((u) => u.includes('/libs/search/dist/engine.js')),
    'the search engine is among the modules',
  );
  return urls;
}

function assertNone(urls: string[], patterns: RegExp[], what: string): void {
  const found = urls.filter((u) => patterns.some((p) => p.test(u)));
  assert.deepEqual(found, [], `${what} loaded modules it does not need`);
}

describe('codesift search loads only what the search needs', () => {
  let dir: string;
  let keywordRoot: string;
  let hybridRoot: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-e2e-start-'));
    keywordRoot = path.join(dir, 'keyword');
    hybridRoot = path.join(dir, 'hybrid');
    writeTree(keywordRoot, FILES);
    writeTree(hybridRoot, FILES);
    for (const [root, extra] of [
      [keywordRoot, ['--no-vectors']],
      [hybridRoot, []],
    ] as const) {
      const r = await runCli(['index', root, '--quiet', ...extra]);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a keyword-only index: no model, no indexing, serving, tracing or LLM client code', async () => {
    const urls = await loadedBySearch(dir, ['--index', keywordRoot, 'retry a failed request']);
    // Nor the Node modules only other paths use (the launcher's re-run on an old Node,
    // the quantized copy's checksums): each costs a start 3-7 ms.
    assertNone(urls, [...NEVER, MODEL, /^node:(child_process|zlib)$/], 'a keyword-only search');
  });

  test('after the build the CLI runs from its bundle', async () => {
    const urls = await urlsLoadedBySearch(dir, ['--index', keywordRoot, 'retry a failed request']);
    assert.ok(
      urls.includes(pathToFileURL(path.join(cliBundleDir, 'main.js')).href),
      'codesift ran its compiled modules, not its bundle: services/cli/dist/bundle is missing or older than a compiled module (run the full build, npx turbo run build)',
    );
    assert.ok(
      !urls.some((u) => u.includes('/libs/search/dist/')),
      'the search engine ran from its own files beside the bundle',
    );
  });

  test('a hybrid index: the model loads only for a plan with a vector side', async () => {
    // An identifier-only query skips the vector side (and finds the definition).
    const identifier = await loadedBySearch(dir, ['--index', hybridRoot, 'retryWithBackoff']);
    assertNone(identifier, [...NEVER, MODEL], 'an identifier search on a hybrid index');
    const keywordOnly = await loadedBySearch(dir, [
      '--index',
      hybridRoot,
      '--keyword-only',
      'retry a failed request',
    ]);
    assertNone(keywordOnly, [...NEVER, MODEL], '--keyword-only on a hybrid index');
    // A question embeds: the model is loaded then (and the check above can see it).
    const question = await loadedBySearch(dir, ['--index', hybridRoot, 'retry a failed request']);
    assert.ok(
      question.some((u) => MODEL.test(u)),
      'a natural-language query on a hybrid index loads the model',
    );
    assertNone(question, NEVER, 'a hybrid search');
  });
});
