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
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NATS_DEFAULT_MAX_PAYLOAD, SERVICE_NAMES, SERVICES } from '@codesift/bus';
import { OLLAMA_STRUCTURED_OUTPUT_SINCE } from '@codesift/llm';
import { readServiceConfig } from '@codesift/service-kit';
import { QDRANT_SPEC_FILE } from '@codesift/stores-qdrant/testing';
import { embedderFromEnv, STAGES } from '@codesift/worker';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../support/cli.js';
import {
  argvOf,
  type CodeFacts,
  codeFacts,
  composePolicyProblems,
  composeProblems,
  DEPLOY,
  dockerfileProblems,
  dockerignoreProblems,
  type K8s,
  k8sPolicyProblems,
  k8sProblems,
  keysRead,
  loadK8s,
  type NatsPayloads,
  natsConfigFiles,
  payloadProblems,
  probeNatsConfig,
  repoPathInImage,
  serverVersionProblems,
  type Yaml,
} from '../support/deploy-checks/index.js';

// --- the tests -------------------------------------------------------------------------

/** The codesift image as the manifests name it (the kustomization's `images` entry). */
function kustomizeImages(k8s: K8s): Set<string> {
  return new Set((k8s.kustomization?.images ?? []).map((i: Yaml) => String(i.name)));
}

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
      payloads.set(file, await probeNatsConfig(file));
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

  test('a real nats-server reads the NATS config files: the payload limit, and no client without credentials', async () => {
    const conf = path.join(DEPLOY, 'nats-auth.conf');
    assert.ok(payloads.has(conf), 'the deployment files use deploy/nats-auth.conf');
    const probe = payloads.get(conf);
    assert.ok(probe && !(probe instanceof Error), String(probe));
    assert.ok(probe.maxPayload > NATS_DEFAULT_MAX_PAYLOAD);
    assert.equal(probe.refusesAnonymous, true);
    // nats.conf alone (npm run cluster, on loopback) sets the limit but no credentials.
    const plain = payloads.get(path.join(DEPLOY, 'nats.conf'));
    assert.ok(plain && !(plain instanceof Error) && !plain.refusesAnonymous);
    assert.equal(plain.maxPayload, probe.maxPayload);
    // Without nats.conf the server announces the 1 MiB default, whose messages
    // are too small for the largest files the scanner reads: the check fails,
    // as it does for a server that lets anyone in.
    const bare = path.join(dir, 'bare.conf');
    writeFileSync(bare, '# nothing set\n');
    const fallback = await probeNatsConfig(bare);
    assert.ok(!(fallback instanceof Error));
    assert.equal(fallback.maxPayload, NATS_DEFAULT_MAX_PAYLOAD);
    const problems = payloadProblems('nats', bare, new Map([[bare, fallback]]), facts);
    assert.ok(problems.some((p) => p.includes('max_payload')));
    assert.ok(problems.some((p) => p.includes('without credentials')));
    // The server will not start without the variables the config reads.
    const noEnv = spawnSync('nats-server', ['-c', conf, '-p', '-1'], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 5000,
    });
    assert.notEqual(noEnv.status, 0);
    assert.match(`${noEnv.stderr}${noEnv.stdout}`, /NATS_USER/);
  });

  test('the operator policy holds: published ports, secrets, store security, health, resources, rollouts, images', () => {
    assert.deepEqual(composePolicyProblems(compose), []);
    assert.deepEqual(k8sPolicyProblems(k8s, kustomizeImages(k8s)), []);
  });

  test('the third-party servers are versions the code works with (Ollama structured outputs, the Qdrant API it is validated against)', () => {
    const qdrant = /-v?(\d+\.\d+\.\d+)\.json$/.exec(QDRANT_SPEC_FILE)?.[1];
    assert.ok(qdrant, QDRANT_SPEC_FILE);
    assert.deepEqual(
      serverVersionProblems(compose, { ollamaAtLeast: OLLAMA_STRUCTURED_OUTPUT_SINCE, qdrant }),
      [],
    );
  });

  test('kubectl kustomize renders deploy/, and the rendered manifests keep the policy', (t) => {
    const run = spawnSync('kubectl', ['kustomize', DEPLOY], { encoding: 'utf8', timeout: 60_000 });
    if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
      t.skip('kubectl is not installed');
      return;
    }
    assert.equal(run.status, 0, run.stderr);
    const docs = parseAllDocuments(run.stdout).map((d) => d.toJS() as Yaml);
    const kinds = docs.map((d) => `${d.kind}/${d.metadata?.name}`);
    for (const k of [
      'HorizontalPodAutoscaler/query',
      'PodDisruptionBudget/query',
      'PodDisruptionBudget/mcp',
      'NetworkPolicy/default-deny-ingress',
      'NetworkPolicy/metrics',
      'StatefulSet/nats',
    ]) {
      assert.ok(kinds.includes(k), `renders ${k}`);
    }
    assert.ok(docs.every((d) => d.kind === 'Namespace' || d.metadata?.namespace === 'codesift'));
    // The generated NATS ConfigMap (a hashed name) carries both files the server reads.
    const conf = docs.find((d) => d.kind === 'ConfigMap' && /^nats-config-/.test(d.metadata.name));
    assert.deepEqual(Object.keys(conf?.data ?? {}).sort(), ['nats-auth.conf', 'nats.conf']);
    const rendered: K8s = { kustomization: k8s.kustomization, files: [], docs };
    const image = (k8s.kustomization.images ?? []).map(
      (i: Yaml) => `${i.newName ?? i.name}:${i.newTag}`,
    );
    assert.deepEqual(k8sPolicyProblems(rendered, new Set(image)), []);
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
    for (const d of k8s.docs.filter((x: Yaml) => x.kind === 'Deployment')) {
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
    const badMetricsPort = copy();
    badMetricsPort.services.writer.environment.CODESIFT_METRICS_PORT = 'metrics';
    assert.ok(
      composeProblems(badMetricsPort, facts, payloads).some((p) =>
        p.includes("CODESIFT_METRICS_PORT is not a port: 'metrics'"),
      ),
    );
    // The operator policy on the real files: every stage and query keep their
    // metrics port on the network, reachable by the scraper only.
    const metricsUnexposed = copy();
    delete metricsUnexposed.services.scanner.expose;
    assert.ok(
      composePolicyProblems(metricsUnexposed).some((p) =>
        p.includes('scanner: metrics port 9464 is not in expose'),
      ),
    );
    const metricsPublished = copy();
    metricsPublished.services.query.ports.push('9464:9464');
    assert.ok(
      composePolicyProblems(metricsPublished).some((p) => p.includes('publishes metrics port')),
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
    const noScraperPolicy = k8sWith((docs) =>
      docs.filter((d) => !(d.kind === 'NetworkPolicy' && d.metadata.name === 'metrics')),
    );
    const unscraped = k8sPolicyProblems(noScraperPolicy, kustomizeImages(k8s));
    for (const w of [
      'scanner',
      'chunker',
      'contextualizer',
      'embedder',
      'writer',
      'symbols',
      'query',
    ]) {
      assert.ok(
        unscraped.includes(
          `${w}: no NetworkPolicy admits namespace monitoring to metrics port 9464`,
        ),
        JSON.stringify(unscraped),
      );
    }
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
