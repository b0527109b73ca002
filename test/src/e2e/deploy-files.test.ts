// The deployment files (Dockerfile, docker-compose.yml, deploy/*.yaml) checked
// against the code they deploy: worker stages, their queues and durable
// consumers, the request/reply services they answer, the environment
// variables the code reads (and how the store, query and telemetry
// configuration read them), default ports and launcher paths all come from
// the real modules, never from a list here.
// No Docker engine or Kubernetes is needed: the files are parsed, not run;
// only the NATS config file is handed to a real nats-server, which says
// what max_payload it makes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import {
  messageByteLimit,
  NATS_DEFAULT_MAX_PAYLOAD,
  SERVICE_NAMES,
  SERVICES,
  WORK_QUEUES,
  type WorkQueue,
} from '@codesift/bus';
import { errorMessage } from '@codesift/core';
import { resolveLlmConfig } from '@codesift/llm';
import { HEALTH_PATH } from '@codesift/mcp-bridge';
import {
  createLogger,
  DEFAULT_NATS_URL,
  readServiceConfig,
  type StageDefinition,
  type StageRuntime,
} from '@codesift/service-kit';
import { embedderFromEnv, STAGES } from '@codesift/worker';
import { connect } from '@nats-io/transport-node';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../support/cli.js';
import { freePort } from '../support/processes.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped by nature
type Yaml = any;

interface StageFacts {
  /** init fails without its store settings (CODESIFT_STORE and what it needs): it opens the index. */
  needsStore: boolean;
  /** The work queues the stage consumes. */
  queues: WorkQueue[];
  /** NATS subjects the stage answers requests on, with their queue group. */
  answers: { subject: string; queue: string | undefined }[];
  /** Environment variables init read (observed). */
  envRead: Set<string>;
}

interface CodeFacts {
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
  /** Major version of the Elasticsearch client the stores use: the server must be the same major. */
  esClientMajor: number;
  /** The largest file the scanner reads (DEFAULT_MAX_FILE_BYTES); one message must carry it. */
  scannerMaxFileBytes: number;
  /** The variables resolveLlmConfig (@codesift/llm) reads once a model is named. */
  llmEnvKeys: Set<string>;
}

type StoreSettings = { kind: 'sqlite'; indexPath: string } | { kind: 'elastic'; esUrl: string };

interface TelemetryFacts {
  enabled: boolean;
  reason?: string;
  protocol?: string;
  tracesUrl?: string;
}

/** The port OTLP/HTTP receivers (Jaeger, the OTel collector) listen on, per the OTLP spec. */
const OTLP_HTTP_PORT = 4318;

// --- what the code says ------------------------------------------------------

function sourceFiles(dir: string, out: string[] = []): string[] {
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

const ENV_READS = [
  /\benv\??\.([A-Z][A-Z0-9_]*)\b/g, // process.env.X, env.X, io.env?.X
  /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g, // env['X']
  /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g, // helper(env, 'X', ...)
];

/** Environment variables read anywhere in the libs' and services' (non-test) sources. */
function envVarsReadByCode(): Set<string> {
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
async function keysRead(fn: (env: NodeJS.ProcessEnv) => unknown, base: NodeJS.ProcessEnv) {
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

async function stageProbe(
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

async function probeStages(dir: string): Promise<Map<string, StageFacts>> {
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

async function importDist(rel: string): Promise<Yaml> {
  return import(pathToFileURL(path.join(repoRoot, rel)).href);
}

async function codeFacts(dir: string): Promise<CodeFacts> {
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
function llmStageProblems(
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

const LLM_MODEL_KEY = 'CODESIFT_LLM_MODEL';

/** Stages whose replica count KEDA owns, each scaled on its own queue's depth. */
const SCALED_STAGES = ['embedder', 'contextualizer'] as const;

/** The stage must have an LLM model setting (empty: pattern mode) next to an Ollama. */
const LLM_STAGES = ['contextualizer'] as const;

// --- NATS config files, as a real nats-server reads them ------------------------

function natsServerBin(): string {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const candidates = [
    ...(process.env.NATS_SERVER_BIN ? [process.env.NATS_SERVER_BIN] : []),
    ...dirs.map((d) => path.join(d, 'nats-server')),
    '/usr/sbin/nats-server',
    '/usr/local/bin/nats-server',
  ];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // the next one
    }
  }
  throw new Error('nats-server not found (apt-get install nats-server, or set NATS_SERVER_BIN)');
}

/** The max_payload a nats-server started with `-c conf` announces to a client; an Error when it will not start. */
async function announcedMaxPayload(conf: string): Promise<number | Error> {
  const port = await freePort();
  const proc = spawn(natsServerBin(), ['-c', conf, '-a', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-2000);
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (proc.exitCode !== null) return new Error(`nats-server -c ${conf} exited: ${output}`);
      try {
        const nc = await connect({ servers: `nats://127.0.0.1:${port}`, timeout: 1000 });
        try {
          return nc.info?.max_payload ?? new Error('the server sent no INFO');
        } finally {
          await nc.close();
        }
      } catch (err) {
        if (Date.now() > deadline) return new Error(`no nats-server on ${port}: ${output || err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    proc.kill('SIGKILL');
    await exited;
  }
}

/** Repo files the deployment files hand to nats-server (compose mounts, kustomize generators). */
function natsConfigFiles(compose: Yaml, k8s: K8s): string[] {
  const files = new Set<string>();
  for (const m of mounts(compose?.services?.nats ?? {})) {
    if (m.source.startsWith('.') || m.source.startsWith('/')) {
      files.add(path.resolve(repoRoot, m.source));
    }
  }
  for (const gen of k8s.kustomization?.configMapGenerator ?? []) {
    for (const entry of gen.files ?? []) files.add(generatorFile(entry).file);
  }
  return [...files].filter((f) => existsSync(f) && statSync(f).isFile());
}

/** A configMapGenerator `files` entry: `path` or `key=path`, relative to deploy/. */
function generatorFile(entry: string): { key: string; file: string } {
  const i = entry.indexOf('=');
  const rel = i < 0 ? entry : entry.slice(i + 1);
  return { key: i < 0 ? path.basename(rel) : entry.slice(0, i), file: path.join(DEPLOY, rel) };
}

/** max_payload announced per config file (see announcedMaxPayload). */
type NatsPayloads = Map<string, number | Error>;

/** The scanner sizes messages to the server's max_payload: a file it reads must fit in one. */
function payloadProblems(
  who: string,
  file: string,
  payloads: NatsPayloads,
  facts: CodeFacts,
): string[] {
  const rel = path.relative(repoRoot, file);
  const payload = payloads.get(file);
  if (payload === undefined) return [`${who}: ${rel} is not a NATS config file this test ran`];
  if (payload instanceof Error) return [`${who}: nats-server refuses ${rel}: ${payload.message}`];
  const limit = messageByteLimit(payload);
  if (limit <= facts.scannerMaxFileBytes) {
    return [
      `${who}: max_payload ${payload} (${rel}) allows ${limit}-byte messages, too small for the scanner's ${facts.scannerMaxFileBytes}-byte files`,
    ];
  }
  return [];
}

// --- helpers over the parsed files ---------------------------------------------

function envMap(environment: Yaml): Record<string, string> {
  if (!environment) return {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((e: string) => {
        const i = e.indexOf('=');
        return i < 0 ? [e, ''] : [e.slice(0, i), e.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, String(v ?? '')]));
}

/** Value after `--flag` in an argv. */
function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

/** host and port of a nats:// URL; the port defaults to the code's. */
function natsTarget(url: string, facts: CodeFacts): { host: string; port: number } | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'nats:') return null;
    return { host: u.hostname, port: u.port ? Number(u.port) : facts.natsPort };
  } catch {
    return null;
  }
}

function mounts(svc: Yaml): { source: string; target: string }[] {
  return (svc.volumes ?? []).map((v: Yaml) => {
    if (typeof v === 'string') {
      const [source, target] = v.split(':');
      return { source: source!, target: target! };
    }
    return { source: v.source, target: v.target };
  });
}

function portPairs(svc: Yaml): string[] {
  return (svc.ports ?? []).map((p: Yaml) =>
    typeof p === 'object' ? `${p.published}:${p.target}` : String(p),
  );
}

function argvOf(command: Yaml): string[] {
  return Array.isArray(command) ? command.map(String) : String(command ?? '').split(/\s+/);
}

/** host and port of an http(s) URL (the scheme's port when none). */
function urlTarget(url: string | undefined): { host: string; port: number } | null {
  try {
    const u = new URL(url ?? '');
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return { host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return null;
  }
}

/** Only the plain string values: what a config reader can be given (Secrets stay out). */
function stringEnv(env: Record<string, Yaml>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string'));
}

/** What a config reader makes of an environment: its result, or the problem it reports. */
function tryRead<T>(problems: string[], who: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    problems.push(`${who}: ${errorMessage(err)}`);
    return undefined;
  }
}

function storeLabel(s: StoreSettings | undefined): string {
  if (!s) return 'none';
  return s.kind === 'sqlite' ? `sqlite ${s.indexPath}` : `elastic ${JSON.stringify(s)}`;
}

// --- docker-compose.yml ------------------------------------------------------------

const IMAGE_ROOT = '/app';

function repoPathInImage(p: string): string | null {
  return p.startsWith(`${IMAGE_ROOT}/`) ? p.slice(IMAGE_ROOT.length + 1) : null;
}

/** Ports a compose service serves inside the network: its published targets and `expose`. */
function servedPorts(svc: Yaml): number[] {
  const published = portPairs(svc).map((p) => Number(p.split(':').pop()));
  return [...published, ...(svc?.expose ?? []).map(Number)];
}

function composeProblems(compose: Yaml, facts: CodeFacts, payloads: NatsPayloads): string[] {
  const problems: string[] = [];
  const services: Record<string, Yaml> = compose?.services ?? {};

  /**
   * The index a service opens (storesFromEnv on its environment): a SQLite
   * file on a volume, or Elasticsearch + Qdrant services it waits for, the
   * Elasticsearch server on the client's major version.
   */
  const storeOf = (
    name: string,
    svc: Yaml,
  ): { settings: StoreSettings; volume?: string } | undefined => {
    const env = envMap(svc.environment);
    const settings = tryRead(problems, name, () => facts.storesFromEnv(env));
    if (!settings) return undefined;
    if (settings.kind === 'sqlite') {
      const m = mounts(svc).find((v) => v.target === path.posix.dirname(settings.indexPath));
      if (!m) {
        problems.push(`${name}: CODESIFT_INDEX ${settings.indexPath} is not on a volume`);
        return undefined;
      }
      return { settings, volume: m.source };
    }
    for (const key of ['ES_URL', 'QDRANT_URL']) {
      const t = urlTarget(env[key]);
      const dep = t ? services[t.host] : undefined;
      if (!t || !dep) {
        problems.push(`${name}: ${key} ${env[key]} is no service of this file`);
        continue;
      }
      if (!servedPorts(dep).includes(t.port)) {
        problems.push(`${name}: ${key} ${env[key]}: ${t.host} does not serve port ${t.port}`);
      }
      const condition = svc.depends_on?.[t.host]?.condition;
      if (!condition) problems.push(`${name}: does not wait for ${t.host} (${key})`);
      else if (dep.healthcheck && condition !== 'service_healthy') {
        problems.push(`${name}: does not wait for ${t.host} to be healthy`);
      }
      if (key === 'ES_URL') {
        const major = /:(\d+)\.[^:/]*$/.exec(String(dep.image ?? ''))?.[1];
        if (Number(major) !== facts.esClientMajor) {
          problems.push(
            `${name}: ES_URL's ${t.host} runs ${dep.image}, not Elasticsearch ${facts.esClientMajor}.x (the client's major version)`,
          );
        }
      }
    }
    return { settings };
  };
  const own = Object.entries(services).filter(([, s]) => s?.build !== undefined);
  if (own.length === 0) problems.push('no service builds the codesift image');
  const images = new Set(own.map(([, s]) => s.image));
  if (images.size > 1) problems.push(`services build different images: ${[...images].join(', ')}`);
  const declaredVolumes = new Set(Object.keys(compose?.volumes ?? {}));

  for (const [name, svc] of own) {
    const argv = argvOf(svc.command);
    const env = envMap(svc.environment);
    if (!facts.bins.has(argv[0]!)) problems.push(`${name}: command ${argv[0]} is no codesift bin`);
    for (const key of Object.keys(env)) {
      if (!facts.envVars.has(key)) problems.push(`${name}: sets ${key}, which no code reads`);
    }
    if (!svc.healthcheck?.test) problems.push(`${name}: no health check`);
    for (const word of argvOf(svc.healthcheck?.test)) {
      const rel = repoPathInImage(word);
      if (rel && !existsSync(path.join(repoRoot, rel))) {
        problems.push(`${name}: health check uses ${word}, missing in the repo`);
      }
    }
    for (const m of mounts(svc)) {
      if (
        !m.source.startsWith('.') &&
        !m.source.startsWith('/') &&
        !declaredVolumes.has(m.source)
      ) {
        problems.push(`${name}: volume ${m.source} is not declared`);
      }
    }
    if (env.NATS_URL !== undefined) {
      const t = natsTarget(env.NATS_URL, facts);
      if (!t || !services[t.host] || t.port !== facts.natsPort) {
        problems.push(
          `${name}: NATS_URL ${env.NATS_URL} is not the nats service on ${facts.natsPort}`,
        );
      } else if (svc.depends_on?.[t.host]?.condition !== 'service_healthy') {
        problems.push(`${name}: does not wait for ${t.host} to be healthy`);
      }
    }
    for (const [dep, cond] of Object.entries<Yaml>(svc.depends_on ?? {})) {
      if (!services[dep]) problems.push(`${name}: depends on unknown service ${dep}`);
      else if (cond?.condition === 'service_healthy' && !services[dep].healthcheck) {
        problems.push(`${name}: waits for ${dep} to be healthy, which has no health check`);
      }
    }
    const published = portPairs(svc);
    const isQuery = argv[0] === 'codesift-query';
    const isMcp = argv[0] === 'codesift' && argv[1] === 'mcp';
    if (!isQuery && !isMcp && published.length) problems.push(`${name}: a worker publishes ports`);
    // Traces: OTLP/HTTP to Jaeger (or a collector) of this file.
    const otel = tryRead(problems, name, () => facts.readTelemetryConfig(name, env));
    if (otel && !otel.enabled) problems.push(`${name}: exports no traces (${otel.reason})`);
    else if (otel) {
      const t = urlTarget(otel.tracesUrl);
      const dep = t ? services[t.host] : undefined;
      if (!t || !dep) problems.push(`${name}: traces go to ${otel.tracesUrl}, no service here`);
      else if (
        otel.protocol === 'grpc' ||
        t.port !== OTLP_HTTP_PORT ||
        !servedPorts(dep).includes(t.port)
      ) {
        problems.push(
          `${name}: traces go to ${otel.tracesUrl} (${otel.protocol}), not ${t.host}'s OTLP/HTTP port ${OTLP_HTTP_PORT}`,
        );
      } else if (!/jaeger|opentelemetry-collector/.test(String(dep.image))) {
        problems.push(
          `${name}: traces go to ${t.host} (${dep.image}), no Jaeger or OTel collector`,
        );
      }
    }
  }

  // Every stage the code knows: a service running exactly it.
  let writerStore: { settings: StoreSettings; volume?: string } | undefined;
  for (const [stage, info] of facts.stages) {
    const svc = services[stage];
    if (!svc) {
      problems.push(`no compose service for stage ${stage}`);
      continue;
    }
    const argv = argvOf(svc.command);
    if (argv.join(' ') !== `codesift-worker ${stage}`) {
      problems.push(`${stage}: command is '${argv.join(' ')}', not 'codesift-worker ${stage}'`);
    }
    const env = envMap(svc.environment);
    if (!env.NATS_URL) problems.push(`${stage}: NATS_URL not set`);
    if (info.needsStore) {
      const store = storeOf(stage, svc);
      if (store) writerStore = store;
    } else {
      for (const key of facts.storeEnvKeys) {
        if (env[key] !== undefined) problems.push(`${stage}: sets ${key}, but opens no index`);
      }
    }
    // Files a stage reads or writes by env: on a volume, or lost with the container.
    for (const key of ['CODESIFT_SYMBOLS_INDEX', 'CODESIFT_SCAN_ROOT']) {
      const value = env[key];
      if (value === undefined) continue;
      if (!info.envRead.has(key))
        problems.push(`${stage}: sets ${key}, which the stage does not read`);
      const dirOf = key === 'CODESIFT_SCAN_ROOT' ? value : path.posix.dirname(value);
      if (!mounts(svc).some((v) => v.target === dirOf)) {
        problems.push(`${stage}: ${key} ${value} is not on a volume`);
      }
    }
  }
  // The scanner needs the trees it indexes.
  if (facts.stages.has('scanner') && !envMap(services.scanner?.environment).CODESIFT_SCAN_ROOT) {
    problems.push('scanner: no CODESIFT_SCAN_ROOT (the checkouts it indexes)');
  }
  const embedder = services.embedder;
  if (embedder && embedder.deploy?.replicas !== 3) {
    problems.push(`embedder: deploy.replicas is ${embedder.deploy?.replicas}, not 3`);
  }
  // The contextualizer's chat model: on the Ollama service of this file.
  const composeOllama = (url: string) => {
    const t = urlTarget(url);
    const dep = t ? services[t.host] : undefined;
    if (!t || !dep) return 'is no service here';
    if (!/ollama/.test(String(dep.image))) return `is ${dep.image}, not Ollama`;
    if (!servedPorts(dep).includes(t.port)) return `: ${t.host} does not serve ${t.port}`;
    return undefined;
  };
  for (const stage of LLM_STAGES) {
    const env = envMap(services[stage]?.environment);
    if (!(LLM_MODEL_KEY in env)) problems.push(`${stage}: no ${LLM_MODEL_KEY} setting`);
    problems.push(...llmStageProblems(stage, env, facts, composeOllama));
  }

  const byCommand = (sub: string) =>
    own.filter(([, s]) => {
      const argv = argvOf(s.command);
      return argv[0] === 'codesift' && argv[1] === sub;
    });
  const checkFrontEnd = (sub: string, port: number, healthWord: string) => {
    const found = byCommand(sub);
    if (found.length !== 1) {
      problems.push(`${found.length} services run 'codesift ${sub}', not 1`);
      return;
    }
    const [name, svc] = found[0]!;
    const argv = argvOf(svc.command);
    if (Number(flag(argv, '--port')) !== port) problems.push(`${name}: --port is not ${port}`);
    if (flag(argv, '--host') !== '0.0.0.0') problems.push(`${name}: --host is not 0.0.0.0`);
    if (!portPairs(svc).includes(`${port}:${port}`))
      problems.push(`${name}: port ${port} not published`);
    for (const p of portPairs(svc)) {
      if (p !== `${port}:${port}`)
        problems.push(`${name}: publishes ${p}, which it does not serve`);
    }
    const test = argvOf(svc.healthcheck?.test).join(' ');
    if (!test.includes(String(port)) || !test.includes(healthWord)) {
      problems.push(`${name}: health check '${test}' does not probe ${healthWord} on ${port}`);
    }
    return { name, svc, argv };
  };
  // The query service: codesift-query, configured from its environment.
  const queries = own.filter(([, s]) => argvOf(s.command)[0] === 'codesift-query');
  if (queries.length !== 1) problems.push(`${queries.length} services run codesift-query, not 1`);
  for (const [name, svc] of queries) {
    const env = envMap(svc.environment);
    const port = Number(env.CODESIFT_GRPC_PORT || facts.queryPort);
    if (port !== facts.queryPort)
      problems.push(`${name}: CODESIFT_GRPC_PORT is not ${facts.queryPort}`);
    if ((env.CODESIFT_GRPC_HOST || '0.0.0.0') !== '0.0.0.0') {
      problems.push(`${name}: CODESIFT_GRPC_HOST is not 0.0.0.0`);
    }
    const pairs = portPairs(svc);
    if (!pairs.includes(`${port}:${port}`)) problems.push(`${name}: port ${port} not published`);
    for (const p of pairs) {
      if (p !== `${port}:${port}`)
        problems.push(`${name}: publishes ${p}, which it does not serve`);
    }
    const test = argvOf(svc.healthcheck?.test).join(' ');
    if (!test.includes(String(port)) || !test.includes('grpc')) {
      problems.push(`${name}: health check '${test}' does not probe grpc on ${port}`);
    }
    // It searches what the writer fills: the same store settings (and volume).
    tryRead(problems, name, () => facts.readQueryConfig(env));
    const store = storeOf(name, svc);
    if (
      store &&
      (!isDeepStrictEqual(store.settings, writerStore?.settings) ||
        store.volume !== writerStore?.volume)
    ) {
      problems.push(
        `${name}: its index (${storeLabel(store.settings)}) is not the writer's index (${storeLabel(writerStore?.settings)})`,
      );
    }
    if (!env.NATS_URL) problems.push(`${name}: NATS_URL not set (symbols and index jobs)`);
    if (!env.CODESIFT_TOKEN) problems.push(`${name}: no CODESIFT_TOKEN`);
  }
  // mcp answers through the query service's gRPC API, with query's token.
  const mcp = checkFrontEnd('mcp', facts.mcpPort, HEALTH_PATH);
  if (mcp) {
    const env = envMap(mcp.svc.environment);
    if (!mcp.argv.includes('--http')) problems.push(`${mcp.name}: not --http`);
    if (!env.CODESIFT_TOKEN) problems.push(`${mcp.name}: no CODESIFT_TOKEN`);
    const [queryName, querySvc] = queries[0] ?? [];
    const queryEnv = envMap(querySvc?.environment);
    const target = `${queryName}:${Number(queryEnv.CODESIFT_GRPC_PORT || facts.queryPort)}`;
    const remote = flag(mcp.argv, '--remote');
    if (remote !== target)
      problems.push(`${mcp.name}: --remote ${remote} is not query's ${target}`);
    if (queryName && mcp.svc.depends_on?.[queryName]?.condition !== 'service_healthy') {
      problems.push(`${mcp.name}: does not wait for ${queryName} to be healthy`);
    }
    // mcp's gRPC token: --remote-token, then --token, then CODESIFT_TOKEN.
    const token =
      flag(mcp.argv, '--remote-token') ?? flag(mcp.argv, '--token') ?? env.CODESIFT_TOKEN;
    if (token !== queryEnv.CODESIFT_TOKEN) {
      problems.push(`${mcp.name}: its gRPC token is not query's CODESIFT_TOKEN`);
    }
  }

  const nats = services.nats;
  if (!nats) problems.push('no nats service');
  else {
    if (!argvOf(nats.command).includes('-js')) problems.push('nats: JetStream (-js) is off');
    if (!portPairs(nats).includes(`${facts.natsPort}:${facts.natsPort}`)) {
      problems.push(`nats: port ${facts.natsPort} not published`);
    }
    if (!nats.healthcheck) problems.push('nats: no health check');
    // Its config file (max_payload), mounted from the repo.
    const conf = flag(argvOf(nats.command), '-c');
    const m = conf ? mounts(nats).find((v) => v.target === conf) : undefined;
    if (!conf) problems.push('nats: no -c <config file> (deploy/nats.conf: max_payload)');
    else if (!m || !(m.source.startsWith('.') || m.source.startsWith('/'))) {
      problems.push(`nats: -c ${conf} is not a file mounted from the repository`);
    } else {
      problems.push(...payloadProblems('nats', path.resolve(repoRoot, m.source), payloads, facts));
    }
  }
  return [...new Set(problems)];
}

// --- deploy/ (kustomize) ------------------------------------------------------------

interface K8s {
  kustomization: Yaml;
  files: string[];
  docs: Yaml[];
}

const DEPLOY = path.join(repoRoot, 'deploy');

function loadK8s(): K8s {
  const files = readdirSync(DEPLOY).filter((f) => /\.ya?ml$/.test(f));
  const docs: Yaml[] = [];
  let kustomization: Yaml;
  for (const f of files) {
    for (const doc of parseAllDocuments(readFileSync(path.join(DEPLOY, f), 'utf8'))) {
      assert.deepEqual(doc.errors, [], `${f} parses`);
      const value = doc.toJS();
      if (value === null) continue;
      if (value.kind === 'Kustomization') kustomization = value;
      else docs.push({ ...value, __file: f });
    }
  }
  return { kustomization, files, docs };
}

/** What a ScaledObject is checked against: the rendered manifests and the code. */
interface ScaleFacts {
  docs: Yaml[];
  deployments: Map<string, Yaml>;
  facts: CodeFacts;
  natsService: Yaml;
  namespace: string | undefined;
  monitorPort: number;
  servicePort: (name: string, port: number) => boolean;
}

/** One stage's KEDA ScaledObject: exactly one, 1 to n replicas, on its own consumer's lag. */
function scaledObjectProblems(
  stage: string,
  { docs, deployments, facts, natsService, namespace, monitorPort, servicePort }: ScaleFacts,
): string[] {
  const problems: string[] = [];
  const queues = facts.stages.get(stage)?.queues ?? [];
  const scaled = docs.filter(
    (d) => d.kind === 'ScaledObject' && d.spec?.scaleTargetRef?.name === stage,
  );
  if (scaled.length !== 1) problems.push(`${scaled.length} ScaledObjects target ${stage}, not 1`);
  if (queues.length !== 1) problems.push(`the ${stage} stage consumes more than one queue`);
  const so = scaled[0];
  if (!so) return problems;
  if (so.apiVersion !== 'keda.sh/v1alpha1') problems.push('ScaledObject is not keda.sh/v1alpha1');
  if (so.spec.minReplicaCount !== 1) problems.push(`${stage} minReplicaCount is not 1`);
  if (!(so.spec.maxReplicaCount > 1)) problems.push(`${stage} maxReplicaCount is not above 1`);
  if (deployments.get(stage)?.spec?.replicas !== undefined) {
    problems.push(`${stage} Deployment sets replicas, which KEDA owns`);
  }
  const trigger = (so.spec.triggers ?? []).find((t: Yaml) => t.type === 'nats-jetstream');
  const queue = queues[0] && WORK_QUEUES[queues[0]];
  if (!trigger) problems.push(`${stage}: no nats-jetstream trigger`);
  else if (queue) {
    const md = trigger.metadata ?? {};
    if (md.stream !== queue.stream)
      problems.push(`${stage}: trigger stream ${md.stream} != ${queue.stream}`);
    if (md.consumer !== queue.durable) {
      problems.push(`${stage}: trigger consumer ${md.consumer} != ${queue.durable}`);
    }
    const [host, port] = String(md.natsServerMonitoringEndpoint).split(':');
    const expected = `${natsService?.metadata?.name}.${namespace}.svc.cluster.local`;
    if (
      host !== expected ||
      Number(port) !== monitorPort ||
      !servicePort(natsService?.metadata?.name, monitorPort)
    ) {
      problems.push(
        `${stage}: trigger endpoint ${md.natsServerMonitoringEndpoint} is not ${expected}:${monitorPort}`,
      );
    }
  }
  return problems;
}

function k8sProblems(k8s: K8s, facts: CodeFacts, payloads: NatsPayloads): string[] {
  const problems: string[] = [];
  const { kustomization, docs } = k8s;
  if (!kustomization) return ['no kustomization.yaml'];
  const listed = new Set<string>(kustomization.resources ?? []);
  for (const f of k8s.files) {
    if (f !== 'kustomization.yaml' && !listed.has(f)) problems.push(`${f} is not in kustomization`);
  }
  for (const r of listed) if (!existsSync(path.join(DEPLOY, r))) problems.push(`${r} is missing`);
  const namespace: string | undefined = kustomization.namespace;
  if (!namespace || !docs.some((d) => d.kind === 'Namespace' && d.metadata?.name === namespace)) {
    problems.push(`namespace ${namespace} is not defined`);
  }
  const image = new Set((kustomization.images ?? []).map((i: Yaml) => i.name));

  const of = (kind: string) =>
    new Map(docs.filter((d) => d.kind === kind).map((d) => [d.metadata?.name, d]));
  const deployments = of('Deployment');
  const services = of('Service');
  const configMaps = of('ConfigMap');
  const pvcs = of('PersistentVolumeClaim');
  const workloads = [...deployments.values(), ...of('StatefulSet').values()];

  const container = (d: Yaml): Yaml => d?.spec?.template?.spec?.containers?.[0];
  const containerEnv = (name: string, c: Yaml): Record<string, Yaml> => {
    const env: Record<string, Yaml> = {};
    for (const from of c?.envFrom ?? []) {
      const cm = configMaps.get(from.configMapRef?.name);
      if (!cm) problems.push(`${name}: envFrom names a missing ConfigMap`);
      else Object.assign(env, cm.data);
    }
    for (const e of c?.env ?? []) {
      const ref = e.valueFrom?.configMapKeyRef;
      if (ref) {
        const value = configMaps.get(ref.name)?.data?.[ref.key];
        if (value === undefined) problems.push(`${name}: ${e.name} names a missing ConfigMap key`);
        env[e.name] = value;
      } else env[e.name] = e.value ?? e.valueFrom;
    }
    return env;
  };
  /**
   * The index a Deployment opens (storesFromEnv on its plain values): a
   * SQLite file on a PVC, or the cluster's Elasticsearch and Qdrant, whose
   * API keys come from a Secret if set at all.
   */
  const storeOf = (name: string, d: Yaml): StoreSettings | undefined => {
    const env = containerEnv(name, container(d));
    const settings = tryRead(problems, name, () => facts.storesFromEnv(stringEnv(env)));
    if (settings?.kind === 'sqlite') {
      if (!pvcs.has(mountedPvc(d, path.posix.dirname(settings.indexPath)))) {
        problems.push(`${name}: CODESIFT_INDEX ${settings.indexPath} is not on the index PVC`);
      }
    }
    for (const key of ['ES_API_KEY', 'QDRANT_API_KEY']) {
      if (typeof env[key] === 'string') problems.push(`${name}: ${key} is not from a Secret`);
    }
    return settings;
  };
  const servicePort = (svcName: string, port: number) =>
    (services.get(svcName)?.spec?.ports ?? []).some((p: Yaml) => p.port === port);
  const mountedPvc = (d: Yaml, dir: string): string | undefined => {
    const spec = d.spec.template.spec;
    const mount = (container(d).volumeMounts ?? []).find((m: Yaml) => m.mountPath === dir);
    const vol = (spec.volumes ?? []).find((v: Yaml) => v.name === mount?.name);
    return vol?.persistentVolumeClaim?.claimName;
  };

  for (const d of deployments.values()) {
    const name = d.metadata.name;
    const c = container(d);
    if (!image.has(c?.image))
      problems.push(`${name}: image ${c?.image} is not the kustomization's`);
    const argv = argvOf(c?.command);
    if (!facts.bins.has(argv[0]!)) problems.push(`${name}: command ${argv[0]} is no codesift bin`);
    for (const key of Object.keys(containerEnv(name, c))) {
      if (!facts.envVars.has(key)) problems.push(`${name}: sets ${key}, which no code reads`);
    }
    const env = containerEnv(name, c);
    if (typeof env.NATS_URL === 'string') {
      const t = natsTarget(env.NATS_URL, facts);
      if (!t || t.port !== facts.natsPort || !servicePort(t.host, facts.natsPort)) {
        problems.push(`${name}: NATS_URL ${env.NATS_URL} is not a Service on ${facts.natsPort}`);
      }
    }
    // Traces: OTLP/HTTP to the cluster's collector.
    const otel = tryRead(problems, name, () => facts.readTelemetryConfig(name, stringEnv(env)));
    if (otel && !otel.enabled) problems.push(`${name}: exports no traces (${otel.reason})`);
    else if (
      otel &&
      (otel.protocol === 'grpc' || urlTarget(otel.tracesUrl)?.port !== OTLP_HTTP_PORT)
    ) {
      problems.push(
        `${name}: traces go to ${otel.tracesUrl} (${otel.protocol}), not an OTLP/HTTP port ${OTLP_HTTP_PORT}`,
      );
    }
  }
  let writerStore: StoreSettings | undefined;

  for (const [stage, info] of facts.stages) {
    const d = deployments.get(stage);
    if (!d) {
      problems.push(`no Deployment for stage ${stage}`);
      continue;
    }
    const argv = argvOf(container(d)?.command);
    if (argv.join(' ') !== `codesift-worker ${stage}`) {
      problems.push(`${stage}: command is '${argv.join(' ')}', not 'codesift-worker ${stage}'`);
    }
    const env = containerEnv(stage, container(d));
    if (!env.NATS_URL) problems.push(`${stage}: NATS_URL not set`);
    if (info.needsStore) writerStore = storeOf(stage, d) ?? writerStore;
    for (const key of ['CODESIFT_SYMBOLS_INDEX', 'CODESIFT_SCAN_ROOT']) {
      const value = env[key];
      if (value === undefined) continue;
      if (!info.envRead.has(key))
        problems.push(`${stage}: sets ${key}, which the stage does not read`);
      const dirOf = key === 'CODESIFT_SCAN_ROOT' ? value : path.posix.dirname(value);
      if (typeof value !== 'string' || !pvcs.has(mountedPvc(d, dirOf))) {
        problems.push(`${stage}: ${key} ${value} is not on a PVC`);
      }
    }
  }
  if (facts.stages.has('scanner')) {
    const d = deployments.get('scanner');
    if (d && !containerEnv('scanner', container(d)).CODESIFT_SCAN_ROOT) {
      problems.push('scanner: no CODESIFT_SCAN_ROOT (the checkouts it indexes)');
    }
  }

  // The query service: codesift-query, configured from its environment.
  const queries = [...deployments.values()].filter(
    (d) => argvOf(container(d)?.command)[0] === 'codesift-query',
  );
  if (queries.length !== 1)
    problems.push(`${queries.length} Deployments run codesift-query, not 1`);
  for (const d of queries) {
    const name = d.metadata.name;
    const c = container(d);
    const env = containerEnv(name, c);
    const port = Number(env.CODESIFT_GRPC_PORT || facts.queryPort);
    if (port !== facts.queryPort)
      problems.push(`${name}: CODESIFT_GRPC_PORT is not ${facts.queryPort}`);
    if ((env.CODESIFT_GRPC_HOST || '0.0.0.0') !== '0.0.0.0') {
      problems.push(`${name}: CODESIFT_GRPC_HOST is not 0.0.0.0`);
    }
    if (!(c.ports ?? []).some((p: Yaml) => p.containerPort === port)) {
      problems.push(`${name}: containerPort ${port} missing`);
    }
    if (!servicePort(name, port)) problems.push(`${name}: no Service on port ${port}`);
    if (c.readinessProbe?.grpc?.port !== port) {
      problems.push(`${name}: readiness is not a gRPC probe on ${port}`);
    }
    // It searches what the writer fills: the same store settings.
    tryRead(problems, name, () => facts.readQueryConfig(stringEnv(env)));
    const store = storeOf(name, d);
    if (store && !isDeepStrictEqual(store, writerStore)) {
      problems.push(
        `${name}: its index (${storeLabel(store)}) is not the writer's index (${storeLabel(writerStore)})`,
      );
    }
    if (!env.NATS_URL) problems.push(`${name}: NATS_URL not set (symbols and index jobs)`);
    if (!env.CODESIFT_TOKEN?.secretKeyRef?.name) {
      problems.push(`${name}: CODESIFT_TOKEN is not from a Secret`);
    }
  }

  const frontEnd = (sub: string, port: number) => {
    const found = [...deployments.values()].filter((d) => {
      const argv = argvOf(container(d)?.command);
      return argv[0] === 'codesift' && argv[1] === sub;
    });
    if (found.length !== 1) {
      problems.push(`${found.length} Deployments run 'codesift ${sub}', not 1`);
      return undefined;
    }
    const d = found[0];
    const name = d.metadata.name;
    const c = container(d);
    const argv = argvOf(c.command);
    if (Number(flag(argv, '--port')) !== port) problems.push(`${name}: --port is not ${port}`);
    if (flag(argv, '--host') !== '0.0.0.0') problems.push(`${name}: --host is not 0.0.0.0`);
    if (!(c.ports ?? []).some((p: Yaml) => p.containerPort === port)) {
      problems.push(`${name}: containerPort ${port} missing`);
    }
    if (!servicePort(name, port)) problems.push(`${name}: no Service on port ${port}`);
    const token = containerEnv(name, c).CODESIFT_TOKEN;
    if (!token?.secretKeyRef?.name) problems.push(`${name}: CODESIFT_TOKEN is not from a Secret`);
    return { name, c, argv };
  };
  const mcp = frontEnd('mcp', facts.mcpPort);
  if (mcp) {
    if (!mcp.argv.includes('--http')) problems.push(`${mcp.name}: not --http`);
    if (mcp.c.readinessProbe?.httpGet?.path !== HEALTH_PATH) {
      problems.push(`${mcp.name}: readiness does not GET ${HEALTH_PATH}`);
    }
    // It answers through a Service in front of the query pods, with query's token.
    const query = queries[0];
    const labels = query?.spec?.template?.metadata?.labels ?? {};
    const queryEnv = containerEnv(query?.metadata?.name, container(query));
    const port = Number(queryEnv.CODESIFT_GRPC_PORT || facts.queryPort);
    const remote = flag(mcp.argv, '--remote') ?? '';
    const [host, remotePort] = remote.split(':');
    const selector: Record<string, string> = services.get(host)?.spec?.selector ?? {};
    const selectsQuery =
      Object.keys(selector).length > 0 &&
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Number(remotePort) !== port || !servicePort(host!, port) || !selectsQuery) {
      problems.push(`${mcp.name}: --remote ${remote} is not a Service on query's port ${port}`);
    }
    const token =
      flag(mcp.argv, '--remote-token') ??
      flag(mcp.argv, '--token') ??
      containerEnv(mcp.name, mcp.c).CODESIFT_TOKEN;
    if (!isDeepStrictEqual(token, queryEnv.CODESIFT_TOKEN)) {
      problems.push(`${mcp.name}: its gRPC token is not query's CODESIFT_TOKEN`);
    }
  }

  // NATS: JetStream, the client port, and the monitoring port KEDA reads.
  const natsWorkload = workloads.find((w) => container(w)?.image?.startsWith('nats:'));
  const natsArgs = argvOf(container(natsWorkload)?.args);
  const monitorPort = Number(flag(natsArgs, '-m'));
  if (!natsWorkload || !natsArgs.includes('-js')) problems.push('no NATS with JetStream (-js)');
  // Its config file (max_payload): a kustomize-generated ConfigMap of a repo file.
  const conf = flag(natsArgs, '-c');
  if (!conf) problems.push('nats: no -c <config file> (deploy/nats.conf: max_payload)');
  else {
    const mount = (container(natsWorkload)?.volumeMounts ?? []).find(
      (m: Yaml) => m.mountPath === path.posix.dirname(conf),
    );
    const volume = (natsWorkload.spec.template.spec.volumes ?? []).find(
      (v: Yaml) => v.name === mount?.name,
    );
    const generator = (kustomization.configMapGenerator ?? []).find(
      (g: Yaml) => g.name === volume?.configMap?.name,
    );
    const entry = (generator?.files ?? [])
      .map(generatorFile)
      .find((f: { key: string }) => f.key === path.posix.basename(conf));
    if (!entry) problems.push(`nats: -c ${conf} is no file of a generated ConfigMap`);
    else problems.push(...payloadProblems('nats', entry.file, payloads, facts));
  }
  const natsService = [...services.values()].find((s) =>
    servicePort(s.metadata.name, facts.natsPort),
  );
  if (!natsService) problems.push(`no Service on the NATS port ${facts.natsPort}`);

  // The embedder and the contextualizer each scale on their own queue's depth.
  for (const stage of SCALED_STAGES) {
    problems.push(
      ...scaledObjectProblems(stage, {
        docs,
        deployments,
        facts,
        natsService,
        namespace,
        monitorPort,
        servicePort,
      }),
    );
  }
  // The contextualizer's chat model: the cluster's own Ollama (not checked here).
  for (const stage of LLM_STAGES) {
    const d = deployments.get(stage);
    const env = d ? containerEnv(stage, container(d)) : {};
    if (!(LLM_MODEL_KEY in env)) problems.push(`${stage}: no ${LLM_MODEL_KEY} setting`);
    problems.push(...llmStageProblems(stage, env, facts));
  }
  return [...new Set(problems)];
}

// --- Dockerfile ---------------------------------------------------------------------

function dockerfileProblems(text: string, facts: CodeFacts, usedBins: Set<string>): string[] {
  const problems: string[] = [];
  const lines = text.split('\n').map((l) => l.trim());
  const idx = (re: RegExp) => lines.findIndex((l) => re.test(l));
  const froms = lines.filter((l) => /^FROM\s/i.test(l));
  if (froms.length < 2) problems.push('not a multi-stage build');
  if (!froms.every((l) => /^FROM node:22-bookworm-slim\b/.test(l))) {
    problems.push('stages are not node:22-bookworm-slim');
  }
  const ci = idx(/^RUN\s.*\bnpm ci\b/);
  const skip = idx(/^(ENV|ARG)\s.*\bONNXRUNTIME_NODE_INSTALL=skip\b/);
  const build = idx(/^RUN\s.*\bnpm run build\b/);
  if (ci < 0) problems.push('no RUN npm ci');
  if (skip < 0 || skip > ci)
    problems.push('ONNXRUNTIME_NODE_INSTALL=skip is not set before npm ci');
  if (build < ci) problems.push('no npm run build after npm ci');
  if (!lines.includes(`WORKDIR ${IMAGE_ROOT}`)) problems.push(`WORKDIR is not ${IMAGE_ROOT}`);
  if (!lines.some((l) => /^(ENV\s.*)?PATH=\/app\/node_modules\/\.bin:/.test(l))) {
    problems.push('PATH does not start with /app/node_modules/.bin (where npm links the bins)');
  }
  const user = lines.filter((l) => /^USER\s/.test(l)).pop();
  if (!user || /\broot\b|\b0\b/.test(user)) problems.push('the runtime runs as root');
  const expose =
    lines
      .find((l) => /^EXPOSE\s/.test(l))
      ?.split(/\s+/)
      .slice(1)
      .map(Number) ?? [];
  for (const p of [facts.queryPort, facts.mcpPort]) {
    if (!expose.includes(p)) problems.push(`port ${p} is not exposed`);
  }
  for (const bin of usedBins) {
    const rel = facts.bins.get(bin);
    if (!rel || !existsSync(path.join(repoRoot, rel))) problems.push(`bin ${bin} has no launcher`);
    // npm links workspace bins into the root node_modules/.bin, as in the image.
    if (!existsSync(path.join(repoRoot, 'node_modules', '.bin', bin))) {
      problems.push(`npm did not link ${bin} into node_modules/.bin`);
    }
  }
  return problems;
}

/** Paths of the repo the image needs, checked against .dockerignore's plain patterns. */
function dockerignoreProblems(ignore: string, needed: string[]): string[] {
  const patterns = ignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'));
  const problems: string[] = [];
  for (const rel of needed) {
    const parts = rel.split('/');
    for (const p of patterns) {
      const bare = p.replace(/^\*\*\//, '');
      const hit = p.startsWith('**/')
        ? parts.includes(bare)
        : rel === p || rel.startsWith(`${p.replace(/\/$/, '')}/`);
      if (hit) problems.push(`.dockerignore pattern ${p} drops ${rel}`);
    }
  }
  return problems;
}

// --- the tests -------------------------------------------------------------------------

describe('deployment files match the code', () => {
  let dir: string;
  let facts: CodeFacts;
  let compose: Yaml;
  let k8s: K8s;
  let payloads: NatsPayloads;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-deploy-'));
    facts = await codeFacts(dir);
    compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    });
    k8s = loadK8s();
    payloads = new Map();
    for (const file of natsConfigFiles(compose, k8s)) {
      payloads.set(file, await announcedMaxPayload(file));
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the facts come from the code', async () => {
    assert.deepEqual([...facts.stages.keys()], Object.keys(STAGES));
    assert.ok(facts.stages.size >= 5, 'every pipeline stage is known');
    assert.ok(
      [...facts.stages.values()].some((s) => s.needsStore),
      'some stage opens the index',
    );
    for (const k of ['CODESIFT_STORE', 'CODESIFT_INDEX', 'ES_URL', 'QDRANT_URL']) {
      assert.ok(facts.storeEnvKeys.has(k), `storesFromEnv reads ${k}`);
    }
    for (const k of [...facts.storeEnvKeys, 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
      assert.ok(facts.envVars.has(k), `the scan finds ${k}`);
    }
    assert.throws(() => facts.storesFromEnv({ CODESIFT_STORE: 'bogus' }), /CODESIFT_STORE/);
    assert.ok(facts.esClientMajor >= 8 && facts.scannerMaxFileBytes > 0);
    // The source scan sees every variable the config and embedder really read.
    const seen = await keysRead((env) => readServiceConfig('probe', env), {});
    for (const k of await keysRead((env) => embedderFromEnv(env), { CODESIFT_EMBEDDER: 'none' })) {
      seen.add(k);
    }
    for (const k of seen) assert.ok(facts.envVars.has(k), `the scan finds ${k}`);
    for (const k of ['CODESIFT_LLM_MODEL', 'OLLAMA_HOST', 'CODESIFT_LLM_TIMEOUT_MS']) {
      assert.ok(facts.llmEnvKeys.has(k), `resolveLlmConfig reads ${k}`);
    }
    assert.ok(facts.stages.get('contextualizer')?.envRead.has('CODESIFT_LLM_MODEL'));
    for (const k of ['NATS_URL', 'CODESIFT_INDEX', 'CODESIFT_TOKEN', 'CODESIFT_LOG_LEVEL']) {
      assert.ok(facts.envVars.has(k), `the scan finds ${k}`);
    }
    assert.ok(
      facts.bins.has('codesift') &&
        facts.bins.has('codesift-worker') &&
        facts.bins.has('codesift-query'),
    );
    // Every request/reply service is answered by the stage the table names,
    // in its queue group (so replicas share), and no stage answers another's.
    for (const n of SERVICE_NAMES) {
      const def = SERVICES[n];
      const stage = facts.stages.get(def.responder);
      assert.ok(stage, `${n}: responder ${def.responder} is a stage`);
      assert.ok(
        stage.answers.some((a) => a.subject === def.subject && a.queue === def.queue),
        `${def.responder} answers ${def.subject} in queue group ${def.queue}`,
      );
    }
    const answered = [...facts.stages.values()].flatMap((s) => s.answers.map((a) => a.subject));
    assert.deepEqual([...answered].sort(), SERVICE_NAMES.map((n) => SERVICES[n].subject).sort());
  });

  test('a real nats-server reads the NATS config file, and the default would be too small', async () => {
    const conf = path.join(DEPLOY, 'nats.conf');
    assert.ok(payloads.has(conf), 'the deployment files use deploy/nats.conf');
    const payload = payloads.get(conf);
    assert.equal(typeof payload, 'number', String(payload));
    assert.ok((payload as number) > NATS_DEFAULT_MAX_PAYLOAD);
    // Without it the server announces the 1 MiB default, whose messages are
    // too small for the largest files the scanner reads: the check fails.
    const bare = path.join(dir, 'bare.conf');
    writeFileSync(bare, '# nothing set\n');
    const fallback = await announcedMaxPayload(bare);
    assert.equal(fallback, NATS_DEFAULT_MAX_PAYLOAD);
    assert.ok(
      payloadProblems('nats', bare, new Map([[bare, fallback]]), facts).some((p) =>
        p.includes('max_payload'),
      ),
    );
  });

  test('docker-compose.yml runs every service as the code expects', () => {
    assert.deepEqual(composeProblems(compose, facts, payloads), []);
  });

  test('deploy/ (kustomize) runs every service as the code expects', () => {
    assert.deepEqual(k8sProblems(k8s, facts, payloads), []);
  });

  test('the Dockerfile builds one image with every launcher the files use', () => {
    const used = new Set<string>();
    for (const s of Object.values<Yaml>(compose.services)) {
      if (s.build !== undefined) used.add(argvOf(s.command)[0]!);
    }
    for (const d of k8s.docs.filter((x) => x.kind === 'Deployment')) {
      used.add(argvOf(d.spec.template.spec.containers[0].command)[0]!);
    }
    const text = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    assert.deepEqual(dockerfileProblems(text, facts, used), []);
    const needed = [...used].map((b) => facts.bins.get(b)!);
    for (const s of Object.values<Yaml>(compose.services)) {
      for (const w of argvOf(s.healthcheck?.test)) {
        const rel = repoPathInImage(w);
        if (rel) needed.push(rel);
      }
    }
    needed.push('package-lock.json', 'services/worker/src/main.ts');
    const ignore = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8');
    assert.deepEqual(dockerignoreProblems(ignore, needed), []);
    // A pattern that would drop the launchers is caught.
    assert.notDeepEqual(dockerignoreProblems(`${ignore}\nservices\n`, needed), []);
  });

  test('the health-check script answers for a running process and not for a missing one', async () => {
    const { spawn, spawnSync } = await import('node:child_process');
    const script = path.join(repoRoot, 'deploy', 'healthcheck.mjs');
    const marker = `codesift-deploy-test-${process.pid}`;
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', marker], {
      stdio: 'ignore',
    });
    try {
      await new Promise((r) => setTimeout(r, 200));
      const run = (...args: string[]) =>
        spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' }).status;
      assert.equal(run('process', marker), 0);
      assert.equal(run('process', marker, path.join(dir, 'absent.db')), 1);
      assert.equal(run('process', `${marker}-none`), 1);
      assert.equal(run('grpc', '127.0.0.1:1'), 1);
      assert.equal(run('bogus'), 2);
    } finally {
      sleeper.kill();
    }
  });

  test('the checks fail when the files drift from the code', () => {
    const copy = (): Yaml => structuredClone(compose);
    const noChunker = copy();
    delete noChunker.services.chunker;
    assert.ok(composeProblems(noChunker, facts, payloads).some((p) => p.includes('chunker')));
    const oneEmbedder = copy();
    oneEmbedder.services.embedder.deploy.replicas = 1;
    assert.ok(composeProblems(oneEmbedder, facts, payloads).some((p) => p.includes('replicas')));
    const unknownEnv = copy();
    unknownEnv.services.writer.environment.CODESIFT_NOT_A_SETTING = 'x';
    assert.ok(
      composeProblems(unknownEnv, facts, payloads).some((p) =>
        p.includes('CODESIFT_NOT_A_SETTING'),
      ),
    );
    const noStore = copy();
    noStore.services.writer.environment.CODESIFT_STORE = 'bogus';
    assert.ok(composeProblems(noStore, facts, payloads).some((p) => p.includes('CODESIFT_STORE')));
    const noEs = copy();
    delete noEs.services.writer.environment.ES_URL;
    assert.ok(composeProblems(noEs, facts, payloads).some((p) => p.includes('ES_URL')));
    const oldEs = copy();
    oldEs.services.elasticsearch.image = 'docker.elastic.co/elasticsearch/elasticsearch:8.15.3';
    assert.ok(composeProblems(oldEs, facts, payloads).some((p) => p.includes('8.15.3')));
    const esUnwaited = copy();
    delete esUnwaited.services.writer.depends_on.elasticsearch;
    assert.ok(
      composeProblems(esUnwaited, facts, payloads).some((p) =>
        p.includes('wait for elasticsearch'),
      ),
    );
    const wrongPort = copy();
    wrongPort.services.query.ports = ['50052:50052'];
    assert.notDeepEqual(composeProblems(wrongPort, facts, payloads), []);
    const noScanRoot = copy();
    delete noScanRoot.services.scanner.environment.CODESIFT_SCAN_ROOT;
    assert.ok(
      composeProblems(noScanRoot, facts, payloads).some((p) => p.includes('CODESIFT_SCAN_ROOT')),
    );
    const queryElsewhere = copy();
    queryElsewhere.services.query.environment.CODESIFT_INDEX_NAME = 'other';
    assert.ok(
      composeProblems(queryElsewhere, facts, payloads).some((p) => p.includes("writer's index")),
    );
    const mcpElsewhere = copy();
    mcpElsewhere.services.mcp.command = argvOf(mcpElsewhere.services.mcp.command).map((w) =>
      w === 'query:50051' ? 'query:50052' : w,
    );
    assert.ok(composeProblems(mcpElsewhere, facts, payloads).some((p) => p.includes('--remote')));
    const untraced = copy();
    delete untraced.services.mcp.environment.OTEL_EXPORTER_OTLP_ENDPOINT;
    assert.ok(composeProblems(untraced, facts, payloads).some((p) => p.includes('no traces')));
    const grpcTraces = copy();
    grpcTraces.services.writer.environment.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://jaeger:4317';
    assert.ok(composeProblems(grpcTraces, facts, payloads).some((p) => p.includes('4317')));
    const natsDefault = copy();
    natsDefault.services.nats.command = ['-js', '-sd', '/data', '-m', '8222'];
    assert.ok(composeProblems(natsDefault, facts, payloads).some((p) => p.includes('-c')));
    const noModel = copy();
    delete noModel.services.contextualizer.environment.CODESIFT_LLM_MODEL;
    assert.ok(
      composeProblems(noModel, facts, payloads).some((p) => p.includes('CODESIFT_LLM_MODEL')),
    );
    const ollamaElsewhere = copy();
    ollamaElsewhere.services.contextualizer.environment.OLLAMA_HOST = 'http://qdrant:6333';
    assert.ok(
      composeProblems(ollamaElsewhere, facts, payloads).some((p) => p.includes('not Ollama')),
    );
    const unknownLlmKey = copy();
    unknownLlmKey.services.contextualizer.environment.CODESIFT_LLM_MODLE = 'qwen3:0.6b';
    assert.ok(
      composeProblems(unknownLlmKey, facts, payloads).some((p) => p.includes('CODESIFT_LLM_MODLE')),
    );
    const symbolsOffVolume = copy();
    symbolsOffVolume.services.symbols.volumes = [];
    assert.ok(
      composeProblems(symbolsOffVolume, facts, payloads).some((p) =>
        p.includes('CODESIFT_SYMBOLS_INDEX'),
      ),
    );

    const k8sWith = (edit: (docs: Yaml[]) => Yaml[]): K8s => ({
      ...k8s,
      docs: edit(structuredClone(k8s.docs)),
    });
    const wrongStream = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'ScaledObject') d.spec.triggers[0].metadata.stream = 'CODESIFT_WORK_FILES';
      }
      return docs;
    });
    assert.ok(k8sProblems(wrongStream, facts, payloads).some((p) => p.includes('stream')));
    const contextualizerOnEmbedderLag = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'ScaledObject' && d.metadata.name === 'contextualizer') {
          d.spec.triggers[0].metadata.consumer = 'embedder';
        }
      }
      return docs;
    });
    assert.ok(
      k8sProblems(contextualizerOnEmbedderLag, facts, payloads).some((p) =>
        p.includes('contextualizer: trigger consumer embedder'),
      ),
    );
    const unscaledContextualizer = k8sWith((docs) =>
      docs.filter((d) => !(d.kind === 'ScaledObject' && d.metadata.name === 'contextualizer')),
    );
    assert.ok(
      k8sProblems(unscaledContextualizer, facts, payloads).some((p) =>
        p.includes('0 ScaledObjects target contextualizer'),
      ),
    );
    const noModelSetting = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'Deployment' && d.metadata.name === 'contextualizer') {
          d.spec.template.spec.containers[0].env = [];
        }
      }
      return docs;
    });
    assert.ok(
      k8sProblems(noModelSetting, facts, payloads).some((p) => p.includes('CODESIFT_LLM_MODEL')),
    );
    const noWriter = k8sWith((docs) =>
      docs.filter((d) => !(d.kind === 'Deployment' && d.metadata.name === 'writer')),
    );
    assert.ok(k8sProblems(noWriter, facts, payloads).some((p) => p.includes('writer')));
    const queryOnPort = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'Deployment' && d.metadata.name === 'query') {
          d.spec.template.spec.containers[0].env.push({ name: 'CODESIFT_GRPC_PORT', value: '1' });
        }
      }
      return docs;
    });
    assert.ok(
      k8sProblems(queryOnPort, facts, payloads).some((p) => p.includes('CODESIFT_GRPC_PORT')),
    );
    const sqliteWriter = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'Deployment' && d.metadata.name === 'writer') {
          d.spec.template.spec.containers[0].env = [
            { name: 'CODESIFT_STORE', value: 'sqlite' },
            { name: 'CODESIFT_INDEX', value: '/data/index.db' },
          ];
        }
      }
      return docs;
    });
    const sqliteProblems = k8sProblems(sqliteWriter, facts, payloads);
    assert.ok(sqliteProblems.some((p) => p.includes('not on the index PVC')));
    assert.ok(sqliteProblems.some((p) => p.includes("writer's index")));
    const mcpToNats = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'Deployment' && d.metadata.name === 'mcp') {
          const cmd = d.spec.template.spec.containers[0].command;
          cmd[cmd.indexOf('--remote') + 1] = 'nats:4222';
        }
      }
      return docs;
    });
    assert.ok(k8sProblems(mcpToNats, facts, payloads).some((p) => p.includes('--remote')));
    const natsNoConf = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'StatefulSet') d.spec.template.spec.volumes = [];
      }
      return docs;
    });
    assert.ok(k8sProblems(natsNoConf, facts, payloads).some((p) => p.includes('nats: -c')));
    const noCollector = k8sWith((docs) => {
      for (const d of docs) {
        if (d.kind === 'ConfigMap') delete d.data.OTEL_EXPORTER_OTLP_ENDPOINT;
      }
      return docs;
    });
    assert.ok(k8sProblems(noCollector, facts, payloads).some((p) => p.includes('no traces')));
    const text = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    assert.ok(
      dockerfileProblems(text.replace(/ONNXRUNTIME_NODE_INSTALL=skip/g, ''), facts, new Set()).some(
        (p) => p.includes('ONNXRUNTIME'),
      ),
    );
  });
});
