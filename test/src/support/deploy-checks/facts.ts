// What the code says, for checking the deployment files against it: worker
// stages, their queues and durable consumers, the request/reply services
// they answer, the environment variables the code reads (and how the store,
// query and telemetry configuration read them), default ports and launcher
// paths, all from the real modules, never from a list.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkQueue } from '@codesift/bus';
import { errorMessage } from '@codesift/core';
import { resolveLlmConfig } from '@codesift/llm';
import {
  createLogger,
  DEFAULT_NATS_URL,
  readServiceConfig,
  type StageDefinition,
  type StageRuntime,
} from '@codesift/service-kit';
import { STAGES } from '@codesift/worker';
import { repoRoot } from '../cli.js';
import type { Yaml } from './parsed.js';

export interface StageFacts {
  /** init fails without its store settings (CODESIFT_STORE and what it needs): it opens the index. */
  needsStore: boolean;
  /** The work queues the stage consumes. */
  queues: WorkQueue[];
  /** NATS subjects the stage answers requests on, with their queue group. */
  answers: { subject: string; queue: string | undefined }[];
  /** Environment variables init read (observed). */
  envRead: Set<string>;
}

export interface CodeFacts {
  stages: Map<string, StageFacts>;
  /** Every environment variable the service code reads. */
  envVars: Set<string>;
  natsPort: number;
  /** The query service's default gRPC port (codesift-query). */
  queryPort: number;
  mcpPort: number;
  /** bin name -> repo-relative launcher, from the services' package.json. */
  bins: Map<string, string>;
  /** storesFromEnv (@codesift/stores-cluster): the index a service's environment names; throws when it is wrong. */
  storesFromEnv: (env: NodeJS.ProcessEnv) => StoreSettings;
  /** The variables storesFromEnv reads, for either store. */
  storeEnvKeys: Set<string>;
  /** The query service's readQueryConfig. */
  readQueryConfig: (env: NodeJS.ProcessEnv) => { store: StoreSettings };
  /** readTelemetryConfig (@codesift/telemetry): whether and where a service exports traces. */
  readTelemetryConfig: (service: string, env: NodeJS.ProcessEnv) => TelemetryFacts;
  /** readMetricsConfig (@codesift/telemetry): where a service serves Prometheus metrics; throws on a bad port. */
  readMetricsConfig: (service: string, env: NodeJS.ProcessEnv) => MetricsFacts | undefined;
  /** Major version of the Elasticsearch client the stores use: the server must be the same major. */
  esClientMajor: number;
  /** The largest file the scanner reads (DEFAULT_MAX_FILE_BYTES); one message must carry it. */
  scannerMaxFileBytes: number;
  /** The variables resolveLlmConfig (@codesift/llm) reads once a model is named. */
  llmEnvKeys: Set<string>;
}

export type StoreSettings =
  | { kind: 'sqlite'; indexPath: string }
  | { kind: 'elastic'; esUrl: string };

export interface TelemetryFacts {
  enabled: boolean;
  reason?: string;
  protocol?: string;
  tracesUrl?: string;
}

export interface MetricsFacts {
  prometheus?: { host: string; port: number };
}

/** The port OTLP/HTTP receivers (Jaeger, the OTel collector) listen on, per the OTLP spec. */
export const OTLP_HTTP_PORT = 4318;

export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'testing' && e.name !== 'gen' && e.name !== 'node_modules')
        sourceFiles(p, out);
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
      out.push(p);
    }
  }
  return out;
}

export const ENV_READS = [
  /\benv\??\.([A-Z][A-Z0-9_]*)\b/g, // process.env.X, env.X, io.env?.X
  /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g, // env['X']
  /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g, // helper(env, 'X', ...)
  /\b[A-Z][A-Z0-9_]*_ENV\s*=\s*['"]([A-Z][A-Z0-9_]*)['"]/g, // SCAN_ROOTS_ENV = 'X', read as env[SCAN_ROOTS_ENV]
];

/** Environment variables read anywhere in the libs' and services' (non-test) sources. */
export function envVarsReadByCode(): Set<string> {
  const vars = new Set<string>();
  for (const group of ['libs', 'services']) {
    for (const pkg of readdirSync(path.join(repoRoot, group))) {
      const src = path.join(repoRoot, group, pkg, 'src');
      if (!existsSync(src)) continue;
      for (const file of sourceFiles(src)) {
        const text = readFileSync(file, 'utf8');
        for (const re of ENV_READS) for (const m of text.matchAll(re)) vars.add(m[1]!);
      }
    }
  }
  return vars;
}

/** The keys a function reads from an environment object, observed at run time. */
export async function keysRead(fn: (env: NodeJS.ProcessEnv) => unknown, base: NodeJS.ProcessEnv) {
  const seen = new Set<string>();
  const env = new Proxy(base, {
    get(target, key) {
      if (typeof key === 'string') seen.add(key);
      return target[key as string];
    },
  });
  await fn(env);
  return seen;
}

export async function stageProbe(
  def: StageDefinition,
  base: NodeJS.ProcessEnv,
): Promise<Omit<StageFacts, 'needsStore'>> {
  const answers: StageFacts['answers'] = [];
  const envRead = new Set<string>();
  const env = new Proxy(base, {
    get(target, key) {
      if (typeof key === 'string') envRead.add(key);
      return target[key as string];
    },
  });
  // init builds handlers and subscribes its request/reply services; work
  // messages use NATS only once they arrive. The stub records the subscriptions.
  const nc = {
    subscribe(subject: string, opts?: { queue?: string }) {
      answers.push({ subject, queue: opts?.queue });
      return { drain: async () => undefined, unsubscribe: () => undefined };
    },
  };
  const runtime: StageRuntime = {
    config: readServiceConfig(def.name, env),
    env,
    log: createLogger(def.name, { write: () => undefined }),
    nc: nc as never,
    js: undefined as never,
  };
  const instance = await def.init(runtime);
  try {
    return { queues: instance.bindings.map((b) => b.queue), answers, envRead };
  } finally {
    await instance.close?.();
  }
}

export async function probeStages(dir: string): Promise<Map<string, StageFacts>> {
  const facts = new Map<string, StageFacts>();
  // `none`: no model is loaded just to learn the embedder's queue.
  const base = { CODESIFT_EMBEDDER: 'none' };
  for (const [name, def] of Object.entries(STAGES)) {
    let needsStore = false;
    try {
      await stageProbe(def, { ...base });
    } catch (err) {
      // storesFromEnv: "CODESIFT_STORE=sqlite needs CODESIFT_INDEX".
      if (!/CODESIFT_(INDEX|STORE)/.test(errorMessage(err))) throw err;
      needsStore = true;
    }
    // What it consumes and answers as deployed, with the (SQLite) index it may open.
    const probe = await stageProbe(def, { ...base, CODESIFT_INDEX: path.join(dir, `${name}.db`) });
    facts.set(name, { needsStore, ...probe });
  }
  return facts;
}

export async function importDist(rel: string): Promise<Yaml> {
  return import(pathToFileURL(path.join(repoRoot, rel)).href);
}

export async function codeFacts(dir: string): Promise<CodeFacts> {
  const query = await importDist('services/query/dist/config.js');
  const mcp = await importDist('services/cli/dist/commands/mcp-command.js');
  const stores = await importDist('libs/stores-cluster/dist/env.js');
  const telemetry = await importDist('libs/telemetry/dist/config.js');
  const scanner = await importDist('libs/scanner/dist/types.js');
  const storeEnvKeys = await keysRead((env) => stores.storesFromEnv(env), {
    CODESIFT_STORE: 'elastic',
    ES_URL: 'http://es:9200',
    QDRANT_URL: 'http://qdrant:6333',
  });
  for (const k of await keysRead((env) => stores.storesFromEnv(env), { CODESIFT_INDEX: 'x.db' })) {
    storeEnvKeys.add(k);
  }
  const fromStores = createRequire(path.join(repoRoot, 'libs', 'stores-cluster', 'package.json'));
  const esClient = JSON.parse(
    readFileSync(fromStores.resolve('@elastic/elasticsearch/package.json'), 'utf8'),
  ) as { version: string };
  const bins = new Map<string, string>();
  for (const pkg of readdirSync(path.join(repoRoot, 'services'))) {
    const file = path.join(repoRoot, 'services', pkg, 'package.json');
    if (!existsSync(file)) continue;
    const json = JSON.parse(readFileSync(file, 'utf8')) as { bin?: Record<string, string> };
    for (const [name, rel] of Object.entries(json.bin ?? {})) {
      bins.set(name, path.posix.join('services', pkg, rel));
    }
  }
  return {
    stages: await probeStages(dir),
    envVars: envVarsReadByCode(),
    natsPort: Number(new URL(DEFAULT_NATS_URL).port),
    queryPort: query.DEFAULT_GRPC_PORT,
    mcpPort: mcp.DEFAULT_HTTP_PORT,
    bins,
    storesFromEnv: stores.storesFromEnv,
    storeEnvKeys,
    readQueryConfig: query.readQueryConfig,
    readTelemetryConfig: telemetry.readTelemetryConfig,
    readMetricsConfig: telemetry.readMetricsConfig,
    esClientMajor: Number(esClient.version.split('.')[0]),
    scannerMaxFileBytes: scanner.DEFAULT_MAX_FILE_BYTES,
    llmEnvKeys: await keysRead((env) => resolveLlmConfig(env), { CODESIFT_LLM_MODEL: 'm' }),
  };
}

/**
 * Stages that ask a chat model: they must read the model variable, and only
 * set variables the LLM settings read. `ollamaAt` checks where OLLAMA_HOST
 * points (compose: a service of the file running Ollama); undefined: the
 * cluster's own server, not checked.
 */
export function llmStageProblems(
  stage: string,
  env: Record<string, Yaml>,
  facts: CodeFacts,
  ollamaAt?: (url: string) => string | undefined,
): string[] {
  if (!(LLM_MODEL_KEY in env)) return [];
  const problems: string[] = [];
  if (!facts.stages.get(stage)?.envRead.has(LLM_MODEL_KEY)) {
    problems.push(`${stage}: sets ${LLM_MODEL_KEY}, which the stage does not read`);
  }
  for (const key of Object.keys(env)) {
    if (/^CODESIFT_LLM_/.test(key) && !facts.llmEnvKeys.has(key)) {
      problems.push(`${stage}: sets ${key}, which the LLM settings do not read`);
    }
  }
  const host = env.OLLAMA_HOST;
  if (typeof host !== 'string' || host === '') {
    problems.push(`${stage}: sets ${LLM_MODEL_KEY} but no OLLAMA_HOST`);
  } else {
    const problem = ollamaAt?.(host);
    if (problem) problems.push(`${stage}: OLLAMA_HOST ${host} ${problem}`);
  }
  return problems;
}

export const LLM_MODEL_KEY = 'CODESIFT_LLM_MODEL';

/** A metrics port the file sets is one the code serves /metrics on, where it says. */
export function metricsProblems(name: string, env: NodeJS.ProcessEnv, facts: CodeFacts): string[] {
  const raw = env.CODESIFT_METRICS_PORT;
  if (raw === undefined) return [];
  let served: MetricsFacts['prometheus'];
  try {
    served = facts.readMetricsConfig(name, env)?.prometheus;
  } catch (err) {
    return [`${name}: ${errorMessage(err)}`];
  }
  const host = env.CODESIFT_METRICS_HOST;
  if (served?.port !== Number(raw) || (host !== undefined && served.host !== host)) {
    return [
      `${name}: CODESIFT_METRICS_PORT=${raw} but the code serves metrics at ${JSON.stringify(served)}`,
    ];
  }
  return [];
}

/** Stages whose replica count KEDA owns, each scaled on its own queue's depth. */
export const SCALED_STAGES = ['embedder', 'contextualizer'] as const;

/** The stage must have an LLM model setting (empty: pattern mode) next to an Ollama. */
export const LLM_STAGES = ['contextualizer'] as const;
