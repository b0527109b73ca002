// deploy/ (kustomize) checked against the code it runs.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { WORK_QUEUES } from '@codesift/bus';
import { HEALTH_PATH } from '@codesift/mcp-bridge';
import { parseAllDocuments } from 'yaml';
import {
  type CodeFacts,
  LLM_MODEL_KEY,
  LLM_STAGES,
  llmStageProblems,
  metricsProblems,
  OTLP_HTTP_PORT,
  SCALED_STAGES,
  type StoreSettings,
} from './facts.js';
import { generatorFile, type NatsPayloads, payloadProblems } from './nats-config.js';
import {
  argvOf,
  DEPLOY,
  flag,
  type K8s,
  natsTarget,
  storeLabel,
  stringEnv,
  tryRead,
  urlTarget,
  type Yaml,
} from './parsed.js';
export function loadK8s(): K8s {
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
export interface ScaleFacts {
  docs: Yaml[];
  deployments: Map<string, Yaml>;
  facts: CodeFacts;
  natsService: Yaml;
  namespace: string | undefined;
  monitorPort: number;
  servicePort: (name: string, port: number) => boolean;
}

/** One stage's KEDA ScaledObject: exactly one, 1 to n replicas, on its own consumer's lag. */
export function scaledObjectProblems(
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

export function k8sProblems(k8s: K8s, facts: CodeFacts, payloads: NatsPayloads): string[] {
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
    for (const key of ['ES_API_KEY', 'ES_PASSWORD', 'QDRANT_API_KEY']) {
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
    problems.push(...metricsProblems(name, stringEnv(env), facts));
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
