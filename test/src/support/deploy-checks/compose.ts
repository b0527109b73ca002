// docker-compose.yml checked against the code it runs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { HEALTH_PATH } from '@codesift/mcp-bridge';
import { repoRoot } from '../cli.js';
import {
  type CodeFacts,
  LLM_MODEL_KEY,
  LLM_STAGES,
  llmStageProblems,
  metricsProblems,
  OTLP_HTTP_PORT,
  type StoreSettings,
} from './facts.js';
import { type NatsPayloads, payloadProblems } from './nats-config.js';
import {
  argvOf,
  envMap,
  flag,
  mounts,
  natsTarget,
  portPairs,
  repoPathInImage,
  servedPorts,
  storeLabel,
  tryRead,
  urlTarget,
  type Yaml,
} from './parsed.js';
export function composeProblems(compose: Yaml, facts: CodeFacts, payloads: NatsPayloads): string[] {
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
    problems.push(...metricsProblems(name, env, facts));
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
    if (!servedPorts(nats).includes(facts.natsPort)) {
      problems.push(`nats: port ${facts.natsPort} not exposed`);
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
