// The operator checks on small manifests: a good one passes, and each way of
// breaking it is caught with a message that names the problem.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { K8s, Yaml } from './parsed.js';
import {
  composePolicyProblems,
  imagePinProblem,
  k8sPolicyProblems,
  serverVersionProblems,
} from './policy.js';

const limits = { resources: { limits: { cpus: '1', memory: '1G' } } };
const req = (v: string) => `\${${v}:?set ${v} in .env}`;
const metricsEnv = { CODESIFT_METRICS_PORT: '9464', CODESIFT_METRICS_HOST: '0.0.0.0' };

function goodCompose(): Yaml {
  const natsEnv = {
    NATS_URL: 'nats://nats:4222',
    NATS_USER: req('NATS_USER'),
    NATS_PASSWORD: req('NATS_PASSWORD'),
  };
  return {
    services: {
      nats: {
        image: 'nats:2.10.24-alpine3.21',
        environment: { NATS_USER: req('NATS_USER'), NATS_PASSWORD: req('NATS_PASSWORD') },
        deploy: limits,
      },
      elasticsearch: {
        image: 'docker.elastic.co/elasticsearch/elasticsearch:9.1.0',
        environment: { 'xpack.security.enabled': 'true', ELASTIC_PASSWORD: req('ES_PASSWORD') },
        deploy: limits,
      },
      qdrant: {
        image: 'qdrant/qdrant:v1.12.4',
        environment: { QDRANT__SERVICE__API_KEY: req('QDRANT_API_KEY') },
        deploy: limits,
      },
      writer: {
        build: {},
        image: 'codesift:local',
        command: ['codesift-worker', 'writer'],
        expose: ['9464'],
        environment: {
          ...natsEnv,
          ...metricsEnv,
          CODESIFT_HEALTH_PORT: '8080',
          ES_URL: 'http://elasticsearch:9200',
          ES_USERNAME: 'elastic',
          ES_PASSWORD: req('ES_PASSWORD'),
          QDRANT_URL: 'http://qdrant:6333',
          QDRANT_API_KEY: req('QDRANT_API_KEY'),
        },
        healthcheck: { test: ['CMD', 'node', 'h.mjs', 'http', 'http://127.0.0.1:8080/readyz'] },
        deploy: limits,
      },
      query: {
        build: {},
        image: 'codesift:local',
        command: ['codesift-query'],
        environment: { ...natsEnv, ...metricsEnv, CODESIFT_TOKEN: req('CODESIFT_TOKEN') },
        ports: ['50051:50051'],
        expose: ['9464'],
        deploy: limits,
      },
    },
  };
}

describe('compose policy', () => {
  test('a good file passes', () => {
    assert.deepEqual(composePolicyProblems(goodCompose()), []);
  });

  const broken: [string, (c: Yaml) => void, RegExp][] = [
    ['NATS published', (c) => (c.services.nats.ports = ['4222:4222']), /nats: publishes 4222/],
    ['ES published', (c) => (c.services.elasticsearch.ports = ['9200:9200']), /only query and mcp/],
    ['a floating tag', (c) => (c.services.nats.image = 'nats:2.10-alpine'), /not pinned/],
    ['latest', (c) => (c.services.qdrant.image = 'qdrant/qdrant:latest'), /not pinned/],
    ['no tag', (c) => (c.services.qdrant.image = 'qdrant/qdrant'), /no tag/],
    ['no limits', (c) => delete c.services.writer.deploy, /writer: no CPU and memory limits/],
    [
      'a literal token',
      (c) => (c.services.query.environment.CODESIFT_TOKEN = 'hunter2'),
      /query: CODESIFT_TOKEN is not a required/,
    ],
    [
      'an optional password',
      (c) => (c.services.writer.environment.ES_PASSWORD = `\${ES_PASSWORD:-}`),
      /ES_PASSWORD is not a required/,
    ],
    [
      'ES security off',
      (c) => (c.services.elasticsearch.environment['xpack.security.enabled'] = 'false'),
      /security is off/,
    ],
    [
      'Qdrant without a key',
      (c) => delete c.services.qdrant.environment.QDRANT__SERVICE__API_KEY,
      /no QDRANT__SERVICE__API_KEY/,
    ],
    [
      'a client without NATS credentials',
      (c) => delete c.services.query.environment.NATS_PASSWORD,
      /query: NATS_PASSWORD is not the nats server's/,
    ],
    [
      'NATS without authorization',
      (c) => delete c.services.nats.environment,
      /NATS_USER\/NATS_PASSWORD \(its authorization\)/,
    ],
    [
      'a process-exists health check',
      (c) => (c.services.writer.healthcheck.test = ['CMD', 'node', 'h.mjs', 'process', 'writer']),
      /does not ask \/readyz on 8080/,
    ],
    [
      'no health port',
      (c) => delete c.services.writer.environment.CODESIFT_HEALTH_PORT,
      /no CODESIFT_HEALTH_PORT/,
    ],
    [
      'a stage without metrics',
      (c) => delete c.services.writer.environment.CODESIFT_METRICS_PORT,
      /writer: no CODESIFT_METRICS_PORT/,
    ],
    [
      'metrics on loopback',
      (c) => delete c.services.query.environment.CODESIFT_METRICS_HOST,
      /query: CODESIFT_METRICS_HOST is not 0.0.0.0/,
    ],
    [
      'the metrics port not exposed',
      (c) => delete c.services.writer.expose,
      /writer: metrics port 9464 is not in expose/,
    ],
    [
      'the metrics port published',
      (c) => c.services.query.ports.push('127.0.0.1:9464:9464'),
      /query: publishes metrics port 9464/,
    ],
    [
      'metrics on the health port',
      (c) => (c.services.writer.environment.CODESIFT_METRICS_PORT = '8080'),
      /writer: metrics port 8080 is also its CODESIFT_HEALTH_PORT/,
    ],
    [
      'the writer on another Qdrant key',
      (c) => (c.services.writer.environment.QDRANT_API_KEY = req('OTHER_KEY')),
      /QDRANT_API_KEY is not qdrant's/,
    ],
  ];
  for (const [what, edit, expected] of broken) {
    test(`caught: ${what}`, () => {
      const c = goodCompose();
      edit(c);
      const problems = composePolicyProblems(c);
      assert.ok(
        problems.some((p) => expected.test(p)),
        JSON.stringify(problems),
      );
    });
  }
});

const secret = (key: string, optional = false) => ({
  name: key,
  valueFrom: { secretKeyRef: { name: 'codesift-secrets', key, ...(optional ? { optional } : {}) } },
});
const resources = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { cpu: '1', memory: '1Gi' },
};

const metricsVars = Object.entries(metricsEnv).map(([name, value]) => ({ name, value }));

function worker(name: string, extra: Yaml = {}): Yaml {
  return {
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/name': name } },
      template: {
        metadata: {
          labels: { 'app.kubernetes.io/name': name },
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': '9464',
            'prometheus.io/path': '/metrics',
          },
        },
        spec: {
          containers: [
            {
              name,
              image: 'codesift',
              command: ['codesift-worker', name],
              env: [
                secret('NATS_USER'),
                secret('NATS_PASSWORD'),
                { name: 'CODESIFT_HEALTH_PORT', value: '8080' },
                ...metricsVars,
                ...(extra.env ?? []),
              ],
              ports: [
                { name: 'health', containerPort: 8080 },
                { name: 'metrics', containerPort: 9464 },
              ],
              livenessProbe: { httpGet: { path: '/livez', port: 'health' } },
              readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
              resources,
            },
          ],
          volumes: extra.volumes ?? [],
        },
      },
      ...(extra.strategy ? { strategy: extra.strategy } : {}),
    },
  };
}

function goodK8s(): K8s {
  const query = worker('query');
  const qc = query.spec.template.spec.containers[0];
  qc.command = ['codesift-query'];
  qc.env = [secret('NATS_USER'), secret('NATS_PASSWORD'), secret('CODESIFT_TOKEN'), ...metricsVars];
  qc.livenessProbe = qc.readinessProbe = { grpc: { port: 50051 } };
  // A fresh copy: the cases edit it, and the workers share objects.
  return structuredClone({
    kustomization: {},
    files: [],
    docs: [
      worker('embedder', {
        env: [
          {
            name: 'CODESIFT_EMBED_THREADS',
            valueFrom: { resourceFieldRef: { containerName: 'embedder', resource: 'limits.cpu' } },
          },
        ],
      }),
      worker('scanner', {
        strategy: { type: 'Recreate' },
        volumes: [{ name: 'c', persistentVolumeClaim: { claimName: 'checkouts' } }],
      }),
      query,
      {
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'checkouts' },
        spec: { accessModes: ['ReadWriteOnce'] },
      },
      {
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'query' },
        spec: { scaleTargetRef: { name: 'query' }, minReplicas: 2, maxReplicas: 4 },
      },
      {
        kind: 'PodDisruptionBudget',
        metadata: { name: 'query' },
        spec: { minAvailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'query' } } },
      },
      {
        kind: 'NetworkPolicy',
        metadata: { name: 'deny' },
        spec: { podSelector: {}, policyTypes: ['Ingress'] },
      },
      {
        kind: 'NetworkPolicy',
        metadata: { name: 'metrics' },
        spec: {
          podSelector: {
            matchExpressions: [
              {
                key: 'app.kubernetes.io/name',
                operator: 'In',
                values: ['embedder', 'scanner', 'query'],
              },
            ],
          },
          policyTypes: ['Ingress'],
          ingress: [
            {
              from: [
                {
                  namespaceSelector: {
                    matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' },
                  },
                },
              ],
              ports: [{ port: 9464 }],
            },
          ],
        },
      },
    ],
  });
}

const images = new Set(['codesift']);
const doc = (k: K8s, kind: string, name: string) =>
  k.docs.find((d) => d.kind === kind && d.metadata.name === name);
const container = (k: K8s, name: string) =>
  doc(k, 'Deployment', name).spec.template.spec.containers[0];

describe('Kubernetes policy', () => {
  test('good manifests pass', () => {
    assert.deepEqual(k8sPolicyProblems(goodK8s(), images), []);
  });

  const broken: [string, (k: K8s) => void, RegExp][] = [
    [
      'no limits',
      (k) => delete container(k, 'scanner').resources.limits,
      /scanner\/scanner: no CPU and memory limits/,
    ],
    [
      'no requests',
      (k) => delete container(k, 'embedder').resources.requests,
      /embedder\/embedder: no CPU and memory requests/,
    ],
    [
      'a floating third-party image',
      (k) => (container(k, 'scanner').image = 'nats:2.10-alpine'),
      /not pinned/,
    ],
    [
      'a liveness that is not /livez',
      (k) => (container(k, 'scanner').livenessProbe = { exec: { command: ['true'] } }),
      /scanner: liveness is not GET \/livez/,
    ],
    [
      'a readiness on another port',
      (k) => (container(k, 'scanner').readinessProbe.httpGet.port = 9999),
      /scanner: readiness is not GET \/readyz on 8080/,
    ],
    [
      'a token written into the manifest',
      (k) => container(k, 'query').env.splice(2, 1, { name: 'CODESIFT_TOKEN', value: 'hunter2' }),
      /CODESIFT_TOKEN is not key CODESIFT_TOKEN of Secret codesift-secrets/,
    ],
    [
      'NATS credentials optional',
      (k) => (container(k, 'query').env[1] = secret('NATS_PASSWORD', true)),
      /query\/query: NATS_PASSWORD is not required/,
    ],
    [
      'embedder threads fixed',
      (k) =>
        (container(k, 'embedder').env = container(k, 'embedder').env.map((e: Yaml) =>
          e.name === 'CODESIFT_EMBED_THREADS' ? { name: e.name, value: '8' } : e,
        )),
      /CODESIFT_EMBED_THREADS is not its own CPU limit/,
    ],
    [
      'RWO volume with a rolling update',
      (k) => delete doc(k, 'Deployment', 'scanner').spec.strategy,
      /scanner: mounts ReadWriteOnce checkouts without strategy Recreate/,
    ],
    [
      'RWO volume with two replicas',
      (k) => (doc(k, 'Deployment', 'scanner').spec.replicas = 2),
      /more than one replica on ReadWriteOnce/,
    ],
    [
      'no HPA for query',
      (k) => (k.docs = k.docs.filter((d) => d.kind !== 'HorizontalPodAutoscaler')),
      /query: no HorizontalPodAutoscaler/,
    ],
    [
      'query replicas beside its HPA',
      (k) => (doc(k, 'Deployment', 'query').spec.replicas = 3),
      /sets replicas, which the HPA owns/,
    ],
    [
      'no PDB for query',
      (k) => (k.docs = k.docs.filter((d) => d.kind !== 'PodDisruptionBudget')),
      /query: no PodDisruptionBudget/,
    ],
    [
      'a PDB no drain can satisfy',
      (k) => (doc(k, 'PodDisruptionBudget', 'query').spec.minAvailable = 2),
      /leaves no pod to evict/,
    ],
    [
      'no metrics containerPort',
      (k) => container(k, 'scanner').ports.pop(),
      /scanner\/scanner: no containerPort 9464 named metrics/,
    ],
    [
      'no metrics port at all',
      (k) =>
        (container(k, 'query').env = container(k, 'query').env.filter(
          (e: Yaml) => e.name !== 'CODESIFT_METRICS_PORT',
        )),
      /query\/query: no CODESIFT_METRICS_PORT/,
    ],
    [
      'metrics on the health port',
      (k) =>
        (container(k, 'embedder').env.find((e: Yaml) => e.name === 'CODESIFT_METRICS_PORT').value =
          '8080'),
      /embedder\/embedder: metrics port 8080 is also its CODESIFT_HEALTH_PORT/,
    ],
    [
      'no scrape annotation',
      (k) =>
        delete doc(k, 'Deployment', 'embedder').spec.template.metadata.annotations[
          'prometheus.io/scrape'
        ],
      /embedder: pod annotation prometheus.io\/scrape is undefined, not true/,
    ],
    [
      'the annotation naming another port',
      (k) =>
        (doc(k, 'Deployment', 'query').spec.template.metadata.annotations['prometheus.io/port'] =
          '8080'),
      /query: pod annotation prometheus.io\/port is 8080, not 9464/,
    ],
    [
      'a pod the metrics policy does not select',
      (k) =>
        (doc(k, 'NetworkPolicy', 'metrics').spec.podSelector.matchExpressions[0].values = [
          'query',
        ]),
      /scanner: no NetworkPolicy admits namespace monitoring to metrics port 9464/,
    ],
    [
      'metrics open to anyone',
      (k) => delete doc(k, 'NetworkPolicy', 'metrics').spec.ingress[0].from,
      /query: NetworkPolicy metrics admits anyone to metrics port 9464/,
    ],
    [
      'no default-deny NetworkPolicy',
      (k) => (k.docs = k.docs.filter((d) => d.kind !== 'NetworkPolicy')),
      /no default-deny ingress NetworkPolicy/,
    ],
  ];
  for (const [what, edit, expected] of broken) {
    test(`caught: ${what}`, () => {
      const k = goodK8s();
      edit(k);
      const problems = k8sPolicyProblems(k, images);
      assert.ok(
        problems.some((p) => expected.test(p)),
        JSON.stringify(problems),
      );
    });
  }
});

test('image pins: exact versions and digests pass, moving tags do not', () => {
  for (const ok of [
    'nats:2.10.24-alpine3.21',
    'qdrant/qdrant:v1.12.4',
    'docker.elastic.co/elasticsearch/elasticsearch:9.1.0',
    'registry:5000/team/app:1.2.3',
    `nats@sha256:${'a'.repeat(64)}`,
  ]) {
    assert.equal(imagePinProblem(ok), undefined, ok);
  }
  for (const bad of ['nats', 'nats:latest', 'nats:2.10-alpine', 'nats:2', 'registry:5000/app']) {
    assert.ok(imagePinProblem(bad), bad);
  }
});

test('server versions: Ollama at least the structured-output release, Qdrant the validated API', () => {
  const needs = { ollamaAtLeast: '0.5.0', qdrant: 'v1.19.0' };
  const compose = (ollama: string, qdrant: string): Yaml => ({
    services: {
      ollama: { image: ollama },
      'ollama-pull': { image: ollama },
      qdrant: { image: qdrant },
      nats: { image: 'nats:2.10.24-alpine3.21' },
    },
  });
  assert.deepEqual(
    serverVersionProblems(compose('ollama/ollama:0.9.0', 'qdrant/qdrant:v1.19.0'), needs),
    [],
  );
  assert.deepEqual(
    serverVersionProblems(compose('ollama/ollama:0.5.0', 'qdrant/qdrant:v1.19.0'), needs),
    [],
  );
  const old = serverVersionProblems(compose('ollama/ollama:0.4.7', 'qdrant/qdrant:v1.12.4'), needs);
  assert.equal(old.length, 3, JSON.stringify(old));
  assert.match(old[0] ?? '', /^ollama: ollama\/ollama:0\.4\.7 predates Ollama 0\.5\.0/);
  assert.match(old[1] ?? '', /^ollama-pull: /);
  assert.match(old[2] ?? '', /^qdrant: qdrant\/qdrant:v1\.12\.4 is not Qdrant v1\.19\.0/);
  // A newer Qdrant is as untested as an older one; a tag without a version says nothing.
  assert.equal(
    serverVersionProblems(compose('ollama/ollama:0.9.0', 'qdrant/qdrant:v1.20.0'), needs).length,
    1,
  );
  assert.equal(
    serverVersionProblems(compose('ollama/ollama:latest', 'qdrant/qdrant:v1.19.0'), needs).length,
    2,
  );
});
