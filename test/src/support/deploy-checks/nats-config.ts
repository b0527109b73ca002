// NATS config files as a real nats-server reads them: the max_payload it
// announces must carry the largest file the scanner reads in one message,
// and the deployed server must refuse clients without credentials.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { messageByteLimit } from '@codesift/bus';
import { type NatsServerHandle, startNatsServer } from '@codesift/bus/testing';
import { errorMessage } from '@codesift/core';
import { connect, errors } from '@nats-io/transport-node';
import { repoRoot } from '../cli.js';
import type { CodeFacts } from './facts.js';
import { DEPLOY, type K8s, mounts, type Yaml } from './parsed.js';

/**
 * Credentials the probe server gets in its environment: a config with an
 * `authorization` block reads NATS_USER and NATS_PASSWORD from there.
 */
const PROBE_AUTH = { user: 'deploy-probe', pass: 'deploy-probe-secret' };

/** What a real nats-server makes of a config file. */
export interface NatsProbe {
  /** The max_payload it announces. */
  maxPayload: number;
  /** A client without credentials is refused (and one with NATS_USER/NATS_PASSWORD taken). */
  refusesAnonymous: boolean;
}

/** Starts nats-server with `-c conf` on a free loopback port and connects, with and without credentials; an Error when it will not start. */
export async function probeNatsConfig(conf: string): Promise<NatsProbe | Error> {
  let server: NatsServerHandle;
  try {
    server = await startNatsServer({
      args: ['-c', conf],
      env: { ...process.env, NATS_USER: PROBE_AUTH.user, NATS_PASSWORD: PROBE_AUTH.pass },
    });
  } catch (err) {
    return new Error(`nats-server -c ${conf}: ${errorMessage(err)}`);
  }
  try {
    const nc = await connect({ servers: server.url, timeout: 2000, ...PROBE_AUTH });
    const maxPayload = nc.info?.max_payload;
    await nc.close();
    if (maxPayload === undefined) return new Error('the server sent no INFO');
    let refusesAnonymous = false;
    try {
      await (await connect({ servers: server.url, timeout: 2000 })).close();
    } catch (err) {
      refusesAnonymous = err instanceof errors.AuthorizationError;
    }
    return { maxPayload, refusesAnonymous };
  } catch (err) {
    return new Error(`nats-server -c ${conf} refused the credentials: ${errorMessage(err)}`);
  } finally {
    await server.stop();
  }
}

/** Repo files the deployment files hand to nats-server (compose mounts, kustomize generators). */
export function natsConfigFiles(compose: Yaml, k8s: K8s): string[] {
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
export function generatorFile(entry: string): { key: string; file: string } {
  const i = entry.indexOf('=');
  const rel = i < 0 ? entry : entry.slice(i + 1);
  return { key: i < 0 ? path.basename(rel) : entry.slice(0, i), file: path.join(DEPLOY, rel) };
}

/** What nats-server made of each config file (see probeNatsConfig). */
export type NatsPayloads = Map<string, NatsProbe | Error>;

/**
 * The config file the deployed server runs with: the scanner sizes messages
 * to its max_payload, so a file it reads must fit in one; and it must
 * refuse clients without credentials.
 */
export function payloadProblems(
  who: string,
  file: string,
  payloads: NatsPayloads,
  facts: CodeFacts,
): string[] {
  const rel = path.relative(repoRoot, file);
  const payload = payloads.get(file);
  if (payload === undefined) return [`${who}: ${rel} is not a NATS config file this test ran`];
  if (payload instanceof Error) return [`${who}: nats-server refuses ${rel}: ${payload.message}`];
  const problems: string[] = [];
  const limit = messageByteLimit(payload.maxPayload);
  if (limit <= facts.scannerMaxFileBytes) {
    problems.push(
      `${who}: max_payload ${payload.maxPayload} (${rel}) allows ${limit}-byte messages, too small for the scanner's ${facts.scannerMaxFileBytes}-byte files`,
    );
  }
  if (!payload.refusesAnonymous) {
    problems.push(`${who}: ${rel} lets clients in without credentials (no authorization)`);
  }
  return problems;
}
