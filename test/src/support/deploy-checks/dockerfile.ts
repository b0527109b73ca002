// The Dockerfile and .dockerignore checked against the launchers the
// deployment files use.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../cli.js';
import type { CodeFacts } from './facts.js';
import { IMAGE_ROOT } from './parsed.js';

export function dockerfileProblems(
  text: string,
  facts: CodeFacts,
  usedBins: Set<string>,
): string[] {
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
export function dockerignoreProblems(ignore: string, needed: string[]): string[] {
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
