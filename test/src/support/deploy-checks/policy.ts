// What an operator expects of the deployment files whatever the code says:
// nothing but the API published, secrets only from the secrets file or the
// Secret, the stores' security on, real worker health, requests and limits,
// disruption budgets, network policy, autoscaling, rollouts that cannot
// deadlock on a volume, pinned third-party images, and a metrics port for
// the scraper only. Each check is a pure function of the parsed files, so
// its own tests can hand it a bad manifest.
import { argvOf, envMap, type K8s, portPairs, type Yaml } from './parsed.js';

/** Variables whose values are secrets: never written into a deployment file. */
export const SECRET_KEYS = [
  'CODESIFT_TOKEN',
  'NATS_PASSWORD',
  'NATS_TOKEN',
  'ES_PASSWORD',
  'ES_API_KEY',
  'QDRANT_API_KEY',
  'ELASTIC_PASSWORD',
  'QDRANT__SERVICE__API_KEY',
] as const;

/** The one Kubernetes Secret every credential comes from (made from the secrets file). */
export const SECRET_NAME = 'codesift-secrets';

/** The port worker stages serve /livez and /readyz on (CODESIFT_HEALTH_PORT). */
export const WORKER_HEALTH = { liveness: '/livez', readiness: '/readyz' } as const;

/**
 * Prometheus scrapes each service on CODESIFT_METRICS_PORT (listening on all
 * interfaces) at this path, from pods in this namespace (the NetworkPolicy).
 */
export const METRICS = {
  host: '0.0.0.0',
  path: '/metrics',
  portName: 'metrics',
  scraperNamespace: 'monitoring',
} as const;

/**
 * An exact version tag (1.2.3, v1.2.3, 2.10.24-alpine3.21) or a digest.
 * Not `latest`, not a bare name, not a moving `2.10` or `2`.
 */
export function imagePinProblem(image: string): string | undefined {
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return undefined;
  const tag = tagOf(image);
  if (!tag) return `image ${image} has no tag`;
  if (!VERSION_TAG.test(tag)) {
    return `image ${image} is not pinned to an exact version (tag ${tag})`;
  }
  return undefined;
}

/** An exact version tag, its x.y.z captured: 1.2.3, v1.2.3, 2.10.24-alpine3.21. */
const VERSION_TAG = /^v?(\d+)\.(\d+)\.(\d+)(?:[-.+][\w.-]+)?$/;

function tagOf(image: string): string | undefined {
  return /:([^:/]+)$/.exec(image)?.[1];
}

/** The numeric x.y.z of an image's exact version tag (`v1.19.0`, `0.9.0-rocm`), or undefined. */
function imageVersion(image: string): [number, number, number] | undefined {
  const m = VERSION_TAG.exec(tagOf(image) ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** What the code needs of the third-party servers compose runs. */
export interface ServerNeeds {
  /** The LLM client sends a JSON schema as `format`: Ollama answers it from this release. */
  ollamaAtLeast: string;
  /** The Qdrant adapter's requests are validated against this version's OpenAPI document. */
  qdrant: string;
}

/**
 * Third-party images at versions the code works with: an Ollama too old for
 * structured outputs fails every LLM call (each falls back, so nothing says
 * why), and a Qdrant other than the one whose API the adapter is checked
 * against is a server nobody tested.
 */
export function serverVersionProblems(compose: Yaml, needs: ServerNeeds): string[] {
  const problems: string[] = [];
  const wantOllama = imageVersion(`:${needs.ollamaAtLeast}`);
  const wantQdrant = imageVersion(`:${needs.qdrant}`);
  for (const [name, svc] of Object.entries<Yaml>(compose?.services ?? {})) {
    const image = String(svc.image ?? '');
    const version = imageVersion(image);
    if (/(^|\/)ollama\/ollama:/.test(image) && wantOllama) {
      if (!version || compareVersions(version, wantOllama) < 0) {
        problems.push(
          `${name}: ${image} predates Ollama ${needs.ollamaAtLeast} (JSON-schema \`format\`, which the LLM client sends)`,
        );
      }
    }
    if (/(^|\/)qdrant\/qdrant:/.test(image) && wantQdrant) {
      if (!version || compareVersions(version, wantQdrant) !== 0) {
        problems.push(
          `${name}: ${image} is not Qdrant ${needs.qdrant}, the API the adapter is validated against`,
        );
      }
    }
  }
  return problems;
}

/** A compose interpolation compose refuses to start without: `${VAR:?message}`. */
function requiredVariable(value: unknown): string | undefined {
  return /^\$\{([A-Z][A-Z0-9_]*):\?[^}]*\}$/.exec(String(value ?? ''))?.[1];
}

function isFrontEnd(svc: Yaml): boolean {
  const argv = argvOf(svc.command);
  return argv[0] === 'codesift-query' || (argv[0] === 'codesift' && argv[1] === 'mcp');
}

function isWorker(argv: string[]): boolean {
  return argv[0] === 'codesift-worker';
}

/**
 * The processes with metrics of their own: every stage and the query service.
 * `codesift mcp` serves none yet (docs/OBSERVABILITY.md), so nothing scrapes it.
 */
function isScraped(argv: string[]): boolean {
  return isWorker(argv) || argv[0] === 'codesift-query';
}

/** The metrics port an environment sets, or the problem with it. */
function metricsPort(who: string, vars: Record<string, string>): number | string {
  const raw = vars.CODESIFT_METRICS_PORT;
  const port = Number(raw);
  if (!raw) return `${who}: no CODESIFT_METRICS_PORT (its Prometheus ${METRICS.path})`;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return `${who}: CODESIFT_METRICS_PORT '${raw}' is not a port`;
  }
  if (vars.CODESIFT_METRICS_HOST !== METRICS.host) {
    return `${who}: CODESIFT_METRICS_HOST is not ${METRICS.host}: no scraper reaches ${port}`;
  }
  // The health and gRPC servers would take the port first.
  for (const key of ['CODESIFT_HEALTH_PORT', 'CODESIFT_GRPC_PORT']) {
    if (Number(vars[key]) === port) return `${who}: metrics port ${port} is also its ${key}`;
  }
  return port;
}

/** Compose: the metrics port set, on the network (`expose`), never published. */
function composeMetricsProblems(name: string, svc: Yaml, vars: Record<string, string>): string[] {
  const port = metricsPort(name, vars);
  if (typeof port === 'string') return [port];
  const problems: string[] = [];
  if (!(svc.expose ?? []).map(Number).includes(port)) {
    problems.push(`${name}: metrics port ${port} is not in expose`);
  }
  if (portPairs(svc).some((p) => Number(p.split(':').pop()) === port)) {
    problems.push(`${name}: publishes metrics port ${port}; it is for the scraper only`);
  }
  return problems;
}

// --- docker-compose.yml --------------------------------------------------------------

export function composePolicyProblems(compose: Yaml): string[] {
  const problems: string[] = [];
  const services: Record<string, Yaml> = compose?.services ?? {};
  const env = (name: string) => envMap(services[name]?.environment);
  for (const [name, svc] of Object.entries(services)) {
    // Only the API (gRPC and MCP, both behind CODESIFT_TOKEN) leaves the host network.
    if (!isFrontEnd(svc) && portPairs(svc).length > 0) {
      problems.push(`${name}: publishes ${portPairs(svc).join(', ')}; only query and mcp may`);
    }
    if (svc.image && svc.build === undefined) {
      const p = imagePinProblem(String(svc.image));
      if (p) problems.push(`${name}: ${p}`);
    }
    const limits = svc.deploy?.resources?.limits;
    if (!limits?.cpus || !limits?.memory) problems.push(`${name}: no CPU and memory limits`);
    const vars = env(name);
    for (const key of SECRET_KEYS) {
      if (key in vars && !requiredVariable(vars[key])) {
        problems.push(`${name}: ${key} is not a required \${VAR:?} from the secrets file`);
      }
    }
    const argv = argvOf(svc.command);
    if (isScraped(argv)) problems.push(...composeMetricsProblems(name, svc, vars));
    if (isWorker(argv)) {
      const port = vars.CODESIFT_HEALTH_PORT;
      const test = argvOf(svc.healthcheck?.test).join(' ');
      if (!port) problems.push(`${name}: no CODESIFT_HEALTH_PORT (its /livez and /readyz)`);
      else if (!test.includes(`:${port}${WORKER_HEALTH.readiness}`)) {
        problems.push(
          `${name}: health check '${test}' does not ask ${WORKER_HEALTH.readiness} on ${port}`,
        );
      }
    }
    // Every NATS client sends the credentials the server requires.
    if (vars.NATS_URL !== undefined) {
      for (const key of ['NATS_USER', 'NATS_PASSWORD']) {
        if (!vars[key] || vars[key] !== env('nats')[key]) {
          problems.push(`${name}: ${key} is not the nats server's`);
        }
      }
    }
  }
  const nats = services.nats;
  if (
    nats &&
    !(requiredVariable(env('nats').NATS_USER) && requiredVariable(env('nats').NATS_PASSWORD))
  ) {
    problems.push(
      'nats: NATS_USER/NATS_PASSWORD (its authorization) are not from the secrets file',
    );
  }
  // Elasticsearch with security on, its password the one the clients send.
  const es = env('elasticsearch');
  if (services.elasticsearch) {
    if (es['xpack.security.enabled'] !== 'true') problems.push('elasticsearch: security is off');
    if (!requiredVariable(es.ELASTIC_PASSWORD)) problems.push('elasticsearch: no ELASTIC_PASSWORD');
  }
  const qdrant = env('qdrant');
  if (services.qdrant && !requiredVariable(qdrant.QDRANT__SERVICE__API_KEY)) {
    problems.push('qdrant: no QDRANT__SERVICE__API_KEY');
  }
  for (const [name] of Object.entries(services)) {
    const vars = env(name);
    if (vars.ES_URL !== undefined) {
      if (vars.ES_USERNAME !== 'elastic' || vars.ES_PASSWORD !== es.ELASTIC_PASSWORD) {
        problems.push(`${name}: ES_USERNAME/ES_PASSWORD are not elasticsearch's elastic user`);
      }
    }
    if (vars.QDRANT_URL !== undefined && vars.QDRANT_API_KEY !== qdrant.QDRANT__SERVICE__API_KEY) {
      problems.push(`${name}: QDRANT_API_KEY is not qdrant's QDRANT__SERVICE__API_KEY`);
    }
  }
  return problems;
}

// --- deploy/ (kustomize) -------------------------------------------------------------

type Workload = { kind: string; name: string; doc: Yaml; containers: Yaml[] };

function workloads(k8s: K8s): Workload[] {
  return k8s.docs
    .filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet')
    .map((d) => ({
      kind: d.kind,
      name: d.metadata?.name,
      doc: d,
      containers: d.spec?.template?.spec?.containers ?? [],
    }));
}

function envEntry(c: Yaml, key: string): Yaml {
  return (c.env ?? []).find((e: Yaml) => e.name === key);
}

/** A label selector that names something (not the empty one) and matches these labels. */
function selects(selector: Yaml, labels: Record<string, string>): boolean {
  const match: Record<string, string> = selector?.matchLabels ?? {};
  const expressions: Yaml[] = selector?.matchExpressions ?? [];
  if (Object.keys(match).length === 0 && expressions.length === 0) return false;
  return (
    Object.entries(match).every(([k, v]) => labels[k] === v) &&
    expressions.every((e) => {
      const value = labels[e.key];
      const listed = value !== undefined && (e.values ?? []).includes(value);
      if (e.operator === 'In') return listed;
      if (e.operator === 'NotIn') return !listed;
      if (e.operator === 'Exists') return value !== undefined;
      return e.operator === 'DoesNotExist' && value === undefined;
    })
  );
}

/** An ingress rule covers the port, by number or name (no ports listed: every port). */
function rulePorts(rule: Yaml, port: number, name: string): boolean {
  const ports: Yaml[] = rule.ports ?? [];
  return (
    ports.length === 0 ||
    ports.some((p) => p.port === undefined || Number(p.port) === port || p.port === name)
  );
}

/** Kubernetes: the env, a containerPort named `metrics`, the scrape annotations, and
 * ingress to it from the scraper's namespace only. */
function k8sMetricsProblems(w: Workload, c: Yaml, policies: Yaml[]): string[] {
  const who = `${w.name}/${c.name}`;
  const vars = Object.fromEntries(
    (c.env ?? []).filter((e: Yaml) => e.value !== undefined).map((e: Yaml) => [e.name, e.value]),
  );
  const port = metricsPort(who, vars);
  if (typeof port === 'string') return [port];
  const problems: string[] = [];
  const declared = (c.ports ?? []).filter((p: Yaml) => p.containerPort === port);
  if (declared.length !== 1 || declared[0].name !== METRICS.portName) {
    problems.push(`${who}: no containerPort ${port} named ${METRICS.portName} (and no other)`);
  }
  const pod = w.doc.spec?.template?.metadata ?? {};
  const expected = {
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': String(port),
    'prometheus.io/path': METRICS.path,
  };
  for (const [key, value] of Object.entries(expected)) {
    const actual = pod.annotations?.[key];
    if (actual !== value)
      problems.push(`${w.name}: pod annotation ${key} is ${actual}, not ${value}`);
  }
  const rules = policies
    .filter((p) => (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress'))
    .filter((p) => selects(p.spec?.podSelector, pod.labels ?? {}))
    .flatMap((p) => (p.spec?.ingress ?? []).map((r: Yaml) => ({ name: p.metadata?.name, r })))
    .filter(({ r }) => rulePorts(r, port, METRICS.portName));
  for (const { name, r } of rules) {
    if (!(r.from ?? []).length) {
      problems.push(`${w.name}: NetworkPolicy ${name} admits anyone to metrics port ${port}`);
    }
  }
  const fromScraper = rules.some(({ r }) =>
    (r.from ?? []).some(
      (peer: Yaml) =>
        peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] ===
        METRICS.scraperNamespace,
    ),
  );
  if (!fromScraper) {
    problems.push(
      `${w.name}: no NetworkPolicy admits namespace ${METRICS.scraperNamespace} to metrics port ${port}`,
    );
  }
  return problems;
}

function httpProbe(probe: Yaml, c: Yaml): { path: string; port: number } | undefined {
  const get = probe?.httpGet;
  if (!get) return undefined;
  const named = (c.ports ?? []).find((p: Yaml) => p.name === get.port);
  return { path: get.path, port: Number(named ? named.containerPort : get.port) };
}

export function k8sPolicyProblems(k8s: K8s, images: Set<string>): string[] {
  const problems: string[] = [];
  const docs = k8s.docs;
  const pvcs = new Map(
    docs.filter((d) => d.kind === 'PersistentVolumeClaim').map((d) => [d.metadata?.name, d]),
  );
  const scaledTargets = new Set(
    docs
      .filter((d) => d.kind === 'HorizontalPodAutoscaler' || d.kind === 'ScaledObject')
      .map((d) => d.spec?.scaleTargetRef?.name),
  );
  const policies = docs.filter((d) => d.kind === 'NetworkPolicy');
  for (const w of workloads(k8s)) {
    const labels = w.doc.spec?.template?.metadata?.labels ?? {};
    for (const c of w.containers) {
      const who = `${w.name}/${c.name}`;
      if (!images.has(c.image)) {
        const p = imagePinProblem(String(c.image));
        if (p) problems.push(`${who}: ${p}`);
      }
      for (const side of ['requests', 'limits']) {
        const r = c.resources?.[side];
        if (!r?.cpu || !r?.memory) problems.push(`${who}: no CPU and memory ${side}`);
      }
      for (const e of c.env ?? []) {
        if ((SECRET_KEYS as readonly string[]).includes(e.name)) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref?.name !== SECRET_NAME || ref?.key !== e.name) {
            problems.push(`${who}: ${e.name} is not key ${e.name} of Secret ${SECRET_NAME}`);
          }
        }
      }
      const argv = argvOf(c.command);
      if (isScraped(argv)) problems.push(...k8sMetricsProblems(w, c, policies));
      const natsClient = isWorker(argv) || argv[0] === 'codesift-query' || /^nats:/.test(c.image);
      if (natsClient) {
        for (const key of ['NATS_USER', 'NATS_PASSWORD']) {
          const ref = envEntry(c, key)?.valueFrom?.secretKeyRef;
          if (ref?.name !== SECRET_NAME || ref?.key !== key || ref?.optional) {
            problems.push(`${who}: ${key} is not required from Secret ${SECRET_NAME}`);
          }
        }
      }
      if (isWorker(argv)) {
        const port = Number(envEntry(c, 'CODESIFT_HEALTH_PORT')?.value);
        const live = httpProbe(c.livenessProbe, c);
        const ready = httpProbe(c.readinessProbe, c);
        if (!port) problems.push(`${who}: no CODESIFT_HEALTH_PORT`);
        if (live?.path !== WORKER_HEALTH.liveness || live.port !== port) {
          problems.push(`${who}: liveness is not GET ${WORKER_HEALTH.liveness} on ${port}`);
        }
        if (ready?.path !== WORKER_HEALTH.readiness || ready.port !== port) {
          problems.push(`${who}: readiness is not GET ${WORKER_HEALTH.readiness} on ${port}`);
        }
      }
      if (argv.join(' ') === 'codesift-worker embedder') {
        const ref = envEntry(c, 'CODESIFT_EMBED_THREADS')?.valueFrom?.resourceFieldRef;
        if (ref?.resource !== 'limits.cpu' || (ref.containerName ?? c.name) !== c.name) {
          problems.push(`${who}: CODESIFT_EMBED_THREADS is not its own CPU limit`);
        }
      }
    }
    // A ReadWriteOnce volume attaches to one node: a rolling update's new pod
    // (maybe on another node) would wait for the old one, which waits for it.
    if (w.kind === 'Deployment') {
      for (const v of w.doc.spec?.template?.spec?.volumes ?? []) {
        const pvc = pvcs.get(v.persistentVolumeClaim?.claimName);
        if (!pvc || !(pvc.spec?.accessModes ?? []).includes('ReadWriteOnce')) continue;
        if (w.doc.spec?.strategy?.type !== 'Recreate') {
          problems.push(
            `${w.name}: mounts ReadWriteOnce ${pvc.metadata.name} without strategy Recreate`,
          );
        }
        if ((w.doc.spec?.replicas ?? 1) > 1 || scaledTargets.has(w.name)) {
          problems.push(`${w.name}: more than one replica on ReadWriteOnce ${pvc.metadata.name}`);
        }
      }
    }
    if (w.name === 'query') {
      const hpa = docs.find(
        (d) => d.kind === 'HorizontalPodAutoscaler' && d.spec?.scaleTargetRef?.name === 'query',
      );
      if (!hpa) problems.push('query: no HorizontalPodAutoscaler');
      else {
        if (hpa.apiVersion !== 'autoscaling/v2') problems.push('query: HPA is not autoscaling/v2');
        if (!(hpa.spec.minReplicas >= 2)) problems.push('query: HPA minReplicas below 2');
        if (!(hpa.spec.maxReplicas > hpa.spec.minReplicas))
          problems.push('query: HPA cannot scale');
        if (w.doc.spec?.replicas !== undefined)
          problems.push('query: sets replicas, which the HPA owns');
      }
    }
    if (w.name === 'query' || w.name === 'mcp') {
      const pdb = docs.find(
        (d) => d.kind === 'PodDisruptionBudget' && selects(d.spec?.selector, labels),
      );
      const replicas = w.name === 'query' ? 2 : (w.doc.spec?.replicas ?? 1);
      if (!pdb) problems.push(`${w.name}: no PodDisruptionBudget`);
      else if (pdb.spec?.minAvailable === undefined || pdb.spec.minAvailable >= replicas) {
        problems.push(
          `${w.name}: its PodDisruptionBudget leaves no pod to evict (a drain would hang)`,
        );
      }
    }
  }
  // NetworkPolicy: ingress denied by default, NATS's client port for codesift pods only.
  const denyAll = policies.some(
    (p) =>
      Object.keys(p.spec?.podSelector ?? { x: 1 }).length === 0 &&
      (p.spec?.policyTypes ?? []).includes('Ingress') &&
      !(p.spec?.ingress ?? []).length,
  );
  if (!denyAll) problems.push('no default-deny ingress NetworkPolicy');
  const nats = workloads(k8s).find((w) => w.containers.some((c: Yaml) => /^nats:/.test(c.image)));
  const natsLabels = nats?.doc.spec?.template?.metadata?.labels ?? {};
  for (const p of policies.filter((x) => selects(x.spec?.podSelector, natsLabels))) {
    for (const rule of p.spec?.ingress ?? []) {
      if (!(rule.from ?? []).length)
        problems.push(`NetworkPolicy ${p.metadata.name}: admits anyone to nats`);
    }
  }
  return problems;
}
