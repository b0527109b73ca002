// The deployment files (Dockerfile, docker-compose.yml, deploy/*.yaml) checked
// against the code they deploy: worker stages, their queues and durable
// consumers, the environment variables the code reads, default ports and
// launcher paths all come from the real modules, never from a list here.
// No Docker engine or Kubernetes is needed: the files are parsed, not run.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { WORK_QUEUES, type WorkQueue } from '@codesift/bus';
import { errorMessage } from '@codesift/core';
import { HEALTH_PATH } from '@codesift/mcp-bridge';
import {
  createLogger,
  DEFAULT_NATS_URL,
  readServiceConfig,
  type StageDefinition,
  type StageRuntime,
} from '@codesift/service-kit';
import { embedderFromEnv, STAGES } from '@codesift/worker';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../support/cli.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped by nature
type Yaml = any;

interface StageFacts {
  /** init fails without CODESIFT_INDEX (requireIndexPath). */
  needsIndex: boolean;
  /** The work queues the stage consumes. */
  queues: WorkQueue[];
}

interface CodeFacts {
  stages: Map<string, StageFacts>;
  /** Every environment variable the service code reads. */
  envVars: Set<string>;
  natsPort: number;
  servePort: number;
  mcpPort: number;
  /** bin name -> repo-relative launcher, from the services' package.json. */
  bins: Map<string, string>;
}

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

async function stageQueues(def: StageDefinition, env: NodeJS.ProcessEnv): Promise<WorkQueue[]> {
  const runtime: StageRuntime = {
    config: readServiceConfig(def.name, env),
    env,
    log: createLogger(def.name, { write: () => undefined }),
    // init only builds handlers; NATS is used once messages arrive.
    nc: undefined as never,
    js: undefined as never,
  };
  const instance = await def.init(runtime);
  try {
    return instance.bindings.map((b) => b.queue);
  } finally {
    await instance.close?.();
  }
}

async function probeStages(dir: string): Promise<Map<string, StageFacts>> {
  const facts = new Map<string, StageFacts>();
  // `none`: no model is loaded just to learn the embedder's queue.
  const base = { CODESIFT_EMBEDDER: 'none' };
  for (const [name, def] of Object.entries(STAGES)) {
    let needsIndex = false;
    let queues: WorkQueue[];
    try {
      queues = await stageQueues(def, { ...base });
    } catch (err) {
      if (!/CODESIFT_INDEX/.test(errorMessage(err))) throw err;
      needsIndex = true;
      queues = await stageQueues(def, { ...base, CODESIFT_INDEX: path.join(dir, `${name}.db`) });
    }
    facts.set(name, { needsIndex, queues });
  }
  return facts;
}

async function importDist(rel: string): Promise<Yaml> {
  return import(pathToFileURL(path.join(repoRoot, rel)).href);
}

async function codeFacts(dir: string): Promise<CodeFacts> {
  const serve = await importDist('services/cli/dist/commands/serve-command.js');
  const mcp = await importDist('services/cli/dist/commands/mcp-command.js');
  const servePort = /--port <n>\s+port \(default (\d+)/.exec(serve.help)?.[1];
  assert.ok(servePort, 'serve --help names its default port');
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
    servePort: Number(servePort),
    mcpPort: mcp.DEFAULT_HTTP_PORT,
    bins,
  };
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

// --- docker-compose.yml ------------------------------------------------------------

const IMAGE_ROOT = '/app';

function repoPathInImage(p: string): string | null {
  return p.startsWith(`${IMAGE_ROOT}/`) ? p.slice(IMAGE_ROOT.length + 1) : null;
}

function composeProblems(compose: Yaml, facts: CodeFacts): string[] {
  const problems: string[] = [];
  const services: Record<string, Yaml> = compose?.services ?? {};
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
    const isServe = argv[0] === 'codesift' && argv[1] === 'serve';
    const isMcp = argv[0] === 'codesift' && argv[1] === 'mcp';
    if (!isServe && !isMcp && published.length) problems.push(`${name}: a worker publishes ports`);
  }

  // Every stage the code knows: a service running exactly it.
  let writerIndex: { path: string; volume: string } | undefined;
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
    if (info.needsIndex) {
      const index = env.CODESIFT_INDEX;
      const m = index ? mounts(svc).find((v) => v.target === path.posix.dirname(index)) : undefined;
      if (!index) problems.push(`${stage}: needs CODESIFT_INDEX`);
      else if (!m) problems.push(`${stage}: CODESIFT_INDEX ${index} is not on a volume`);
      else writerIndex = { path: index, volume: m.source };
    }
  }
  const embedder = services.embedder;
  if (embedder && embedder.deploy?.replicas !== 3) {
    problems.push(`embedder: deploy.replicas is ${embedder.deploy?.replicas}, not 3`);
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
    const index = flag(argv, '--index');
    const m = index ? mounts(svc).find((v) => v.target === path.posix.dirname(index)) : undefined;
    if (!writerIndex || index !== writerIndex.path || m?.source !== writerIndex.volume) {
      problems.push(`${name}: --index ${index} is not the writer's index on the shared volume`);
    }
    return { name, svc, argv };
  };
  checkFrontEnd('serve', facts.servePort, 'grpc');
  const mcp = checkFrontEnd('mcp', facts.mcpPort, HEALTH_PATH);
  if (mcp) {
    if (!mcp.argv.includes('--http')) problems.push(`${mcp.name}: not --http`);
    if (!envMap(mcp.svc.environment).CODESIFT_TOKEN)
      problems.push(`${mcp.name}: no CODESIFT_TOKEN`);
  }

  const nats = services.nats;
  if (!nats) problems.push('no nats service');
  else {
    if (!argvOf(nats.command).includes('-js')) problems.push('nats: JetStream (-js) is off');
    if (!portPairs(nats).includes(`${facts.natsPort}:${facts.natsPort}`)) {
      problems.push(`nats: port ${facts.natsPort} not published`);
    }
    if (!nats.healthcheck) problems.push('nats: no health check');
  }
  return problems;
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

function k8sProblems(k8s: K8s, facts: CodeFacts): string[] {
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
    for (const e of c?.env ?? []) env[e.name] = e.value ?? e.valueFrom;
    return env;
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
  }

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
    if (info.needsIndex) {
      const index = env.CODESIFT_INDEX;
      if (typeof index !== 'string') problems.push(`${stage}: needs CODESIFT_INDEX`);
      else if (!pvcs.has(mountedPvc(d, path.posix.dirname(index)))) {
        problems.push(`${stage}: CODESIFT_INDEX ${index} is not on the index PVC`);
      }
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
    const index = flag(argv, '--index');
    if (!index || !pvcs.has(mountedPvc(d, path.posix.dirname(index)))) {
      problems.push(`${name}: --index ${index} is not on the index PVC`);
    }
    const token = containerEnv(name, c).CODESIFT_TOKEN;
    if (!token?.secretKeyRef?.name) problems.push(`${name}: CODESIFT_TOKEN is not from a Secret`);
    return { name, c, argv };
  };
  const query = frontEnd('serve', facts.servePort);
  if (query && query.c.readinessProbe?.grpc?.port !== facts.servePort) {
    problems.push(`${query.name}: readiness is not a gRPC probe on ${facts.servePort}`);
  }
  const mcp = frontEnd('mcp', facts.mcpPort);
  if (mcp) {
    if (!mcp.argv.includes('--http')) problems.push(`${mcp.name}: not --http`);
    if (mcp.c.readinessProbe?.httpGet?.path !== HEALTH_PATH) {
      problems.push(`${mcp.name}: readiness does not GET ${HEALTH_PATH}`);
    }
  }

  // NATS: JetStream, the client port, and the monitoring port KEDA reads.
  const natsWorkload = workloads.find((w) => container(w)?.image?.startsWith('nats:'));
  const natsArgs = argvOf(container(natsWorkload)?.args);
  const monitorPort = Number(flag(natsArgs, '-m'));
  if (!natsWorkload || !natsArgs.includes('-js')) problems.push('no NATS with JetStream (-js)');
  const natsService = [...services.values()].find((s) =>
    servicePort(s.metadata.name, facts.natsPort),
  );
  if (!natsService) problems.push(`no Service on the NATS port ${facts.natsPort}`);

  // The embedder scales on its own queue's depth.
  const embedderQueues = facts.stages.get('embedder')?.queues ?? [];
  const scaled = docs.filter(
    (d) => d.kind === 'ScaledObject' && d.spec?.scaleTargetRef?.name === 'embedder',
  );
  if (scaled.length !== 1) problems.push(`${scaled.length} ScaledObjects target embedder, not 1`);
  if (embedderQueues.length !== 1) problems.push('the embedder stage consumes more than one queue');
  const so = scaled[0];
  if (so) {
    if (so.apiVersion !== 'keda.sh/v1alpha1') problems.push('ScaledObject is not keda.sh/v1alpha1');
    if (so.spec.minReplicaCount !== 1) problems.push('embedder minReplicaCount is not 1');
    if (!(so.spec.maxReplicaCount > 1)) problems.push('embedder maxReplicaCount is not above 1');
    if (deployments.get('embedder')?.spec?.replicas !== undefined) {
      problems.push('embedder Deployment sets replicas, which KEDA owns');
    }
    const trigger = (so.spec.triggers ?? []).find((t: Yaml) => t.type === 'nats-jetstream');
    const queue = embedderQueues[0] && WORK_QUEUES[embedderQueues[0]];
    if (!trigger) problems.push('no nats-jetstream trigger');
    else if (queue) {
      const md = trigger.metadata ?? {};
      if (md.stream !== queue.stream)
        problems.push(`trigger stream ${md.stream} != ${queue.stream}`);
      if (md.consumer !== queue.durable) {
        problems.push(`trigger consumer ${md.consumer} != ${queue.durable}`);
      }
      const [host, port] = String(md.natsServerMonitoringEndpoint).split(':');
      const expected = `${natsService?.metadata?.name}.${namespace}.svc.cluster.local`;
      if (
        host !== expected ||
        Number(port) !== monitorPort ||
        !servicePort(natsService?.metadata?.name, monitorPort)
      ) {
        problems.push(
          `trigger endpoint ${md.natsServerMonitoringEndpoint} is not ${expected}:${monitorPort}`,
        );
      }
    }
  }
  return problems;
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
  for (const p of [facts.servePort, facts.mcpPort]) {
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

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'codesift-deploy-'));
    facts = await codeFacts(dir);
    compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    });
    k8s = loadK8s();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the facts come from the code', async () => {
    assert.deepEqual([...facts.stages.keys()], Object.keys(STAGES));
    assert.ok(facts.stages.size >= 5, 'every pipeline stage is known');
    assert.ok(
      [...facts.stages.values()].some((s) => s.needsIndex),
      'some stage needs the index',
    );
    // The source scan sees every variable the config and embedder really read.
    const seen = await keysRead((env) => readServiceConfig('probe', env), {});
    for (const k of await keysRead((env) => embedderFromEnv(env), { CODESIFT_EMBEDDER: 'none' })) {
      seen.add(k);
    }
    for (const k of seen) assert.ok(facts.envVars.has(k), `the scan finds ${k}`);
    for (const k of ['NATS_URL', 'CODESIFT_INDEX', 'CODESIFT_TOKEN', 'CODESIFT_LOG_LEVEL']) {
      assert.ok(facts.envVars.has(k), `the scan finds ${k}`);
    }
    assert.ok(facts.bins.has('codesift') && facts.bins.has('codesift-worker'));
  });

  test('docker-compose.yml runs every service as the code expects', () => {
    assert.deepEqual(composeProblems(compose, facts), []);
  });

  test('deploy/ (kustomize) runs every service as the code expects', () => {
    assert.deepEqual(k8sProblems(k8s, facts), []);
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
    assert.ok(composeProblems(noChunker, facts).some((p) => p.includes('chunker')));
    const oneEmbedder = copy();
    oneEmbedder.services.embedder.deploy.replicas = 1;
    assert.ok(composeProblems(oneEmbedder, facts).some((p) => p.includes('replicas')));
    const unknownEnv = copy();
    unknownEnv.services.writer.environment.CODESIFT_NOT_A_SETTING = 'x';
    assert.ok(composeProblems(unknownEnv, facts).some((p) => p.includes('CODESIFT_NOT_A_SETTING')));
    const noIndex = copy();
    delete noIndex.services.writer.environment.CODESIFT_INDEX;
    assert.ok(composeProblems(noIndex, facts).some((p) => p.includes('CODESIFT_INDEX')));
    const wrongPort = copy();
    wrongPort.services.query.ports = ['50052:50052'];
    assert.notDeepEqual(composeProblems(wrongPort, facts), []);

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
    assert.ok(k8sProblems(wrongStream, facts).some((p) => p.includes('stream')));
    const noWriter = k8sWith((docs) =>
      docs.filter((d) => !(d.kind === 'Deployment' && d.metadata.name === 'writer')),
    );
    assert.ok(k8sProblems(noWriter, facts).some((p) => p.includes('writer')));
    const text = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    assert.ok(
      dockerfileProblems(text.replace(/ONNXRUNTIME_NODE_INSTALL=skip/g, ''), facts, new Set()).some(
        (p) => p.includes('ONNXRUNTIME'),
      ),
    );
  });
});
