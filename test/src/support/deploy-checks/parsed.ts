// Small readers over parsed compose and Kubernetes YAML (environment maps,
// argv flags, mounts, ports, URLs) shared by the deploy checks.
import path from 'node:path';
import { errorMessage } from '@codesift/core';
import { repoRoot } from '../cli.js';
import type { CodeFacts, StoreSettings } from './facts.js';
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped by nature
export type Yaml = any;

export function envMap(environment: Yaml): Record<string, string> {
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
export function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

/** host and port of a nats:// URL; the port defaults to the code's. */
export function natsTarget(url: string, facts: CodeFacts): { host: string; port: number } | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'nats:') return null;
    return { host: u.hostname, port: u.port ? Number(u.port) : facts.natsPort };
  } catch {
    return null;
  }
}

export function mounts(svc: Yaml): { source: string; target: string }[] {
  return (svc.volumes ?? []).map((v: Yaml) => {
    if (typeof v === 'string') {
      const [source, target] = v.split(':');
      return { source: source!, target: target! };
    }
    return { source: v.source, target: v.target };
  });
}

export function portPairs(svc: Yaml): string[] {
  return (svc.ports ?? []).map((p: Yaml) =>
    typeof p === 'object' ? `${p.published}:${p.target}` : String(p),
  );
}

export function argvOf(command: Yaml): string[] {
  return Array.isArray(command) ? command.map(String) : String(command ?? '').split(/\s+/);
}

/** host and port of an http(s) URL (the scheme's port when none). */
export function urlTarget(url: string | undefined): { host: string; port: number } | null {
  try {
    const u = new URL(url ?? '');
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return { host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return null;
  }
}

/** Only the plain string values: what a config reader can be given (Secrets stay out). */
export function stringEnv(env: Record<string, Yaml>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string'));
}

/** What a config reader makes of an environment: its result, or the problem it reports. */
export function tryRead<T>(problems: string[], who: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    problems.push(`${who}: ${errorMessage(err)}`);
    return undefined;
  }
}

export function storeLabel(s: StoreSettings | undefined): string {
  if (!s) return 'none';
  return s.kind === 'sqlite' ? `sqlite ${s.indexPath}` : `elastic ${JSON.stringify(s)}`;
}

export const IMAGE_ROOT = '/app';

export function repoPathInImage(p: string): string | null {
  return p.startsWith(`${IMAGE_ROOT}/`) ? p.slice(IMAGE_ROOT.length + 1) : null;
}

/** Ports a compose service serves inside the network: its published targets and `expose`. */
export function servedPorts(svc: Yaml): number[] {
  const published = portPairs(svc).map((p) => Number(p.split(':').pop()));
  return [...published, ...(svc?.expose ?? []).map(Number)];
}

export interface K8s {
  kustomization: Yaml;
  files: string[];
  docs: Yaml[];
}

export const DEPLOY = path.join(repoRoot, 'deploy');
