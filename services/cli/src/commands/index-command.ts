import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CodesiftError } from '@codesift/core';
import { createEmbedderFromEnv } from '@codesift/models';
import { defaultIndexPath, type IndexSummary, indexRepository } from '@codesift/pipeline';
import { indexFileFromOption } from '../index-location.js';
import { type CliIO, EXIT, UsageError } from '../io.js';
import { formatCount, styleFor } from '../ui/format.js';
import { lineProgress, silentProgress, ttyProgress } from '../ui/progress-view.js';

export const help = `Usage: codesift index [options] <dir>

Indexes a directory into a local index (default <dir>/.codesift/). A second
run only re-processes files that changed, and removes deleted ones.

Options:
  --index <path>          index directory or .db file (default <dir>/.codesift)
  --json                  print one JSON summary object on stdout
  --no-vectors            keyword index only (no embedding model)
  --rebuild               discard the existing index and index everything
  --max-file-bytes <n>    skip files larger than this (default 1048576)
  --ignore <pattern>      extra gitignore-style pattern (repeatable)
  -q, --quiet             no progress output
  -h, --help              show this help

Environment:
  OLLAMA_HOST             embed with Ollama instead of the built-in model
  CODESIFT_EMBED_MODEL    Ollama embedding model (default nomic-embed-text)
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      index: { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-vectors': { type: 'boolean', default: false },
      rebuild: { type: 'boolean', default: false },
      'max-file-bytes': { type: 'string' },
      ignore: { type: 'string', multiple: true },
      quiet: { type: 'boolean', short: 'q', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? 'missing <dir> to index' : 'index takes exactly one <dir>',
    );
  }
  const root = path.resolve(io.cwd, positionals[0]!);
  if (!existsSync(root)) {
    throw new CodesiftError('ENOENT_ROOT', `directory not found: ${root}`, {
      hint: 'check the path; codesift index takes the root of a source tree',
    });
  }
  if (!statSync(root).isDirectory()) {
    throw new CodesiftError('NOT_A_DIRECTORY', `not a directory: ${root}`, {
      hint: 'codesift index takes a directory, not a file',
    });
  }
  let maxFileBytes: number | undefined;
  if (values['max-file-bytes'] !== undefined) {
    maxFileBytes = Number(values['max-file-bytes']);
    if (!Number.isInteger(maxFileBytes) || maxFileBytes <= 0) {
      throw new UsageError(
        `--max-file-bytes must be a positive integer, got ${values['max-file-bytes']}`,
      );
    }
  }
  const indexPath = values.index
    ? indexFileFromOption(values.index, io.cwd)
    : defaultIndexPath(root);
  const vectors = !values['no-vectors'];

  const view = values.quiet
    ? silentProgress()
    : io.stderr.isTTY
      ? ttyProgress(io.stderr as NodeJS.WriteStream)
      : lineProgress(io.stderr);
  const embedder = vectors ? await createEmbedderFromEnv(io.env) : undefined;
  let summary: IndexSummary;
  try {
    summary = await indexRepository({
      root,
      indexPath,
      vectors,
      embedder,
      rebuild: values.rebuild,
      maxFileBytes,
      extraIgnore: values.ignore,
      onProgress: (p) => view.update(p),
    });
  } finally {
    view.done();
    await embedder?.close();
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    printSummary(summary, io);
  }
  return EXIT.ok;
}

function printSummary(s: IndexSummary, io: CliIO): void {
  const st = styleFor(io.stdout, io.env);
  const skipped = Object.entries(s.skipped)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([reason, n]) => `${reason} ${formatCount(n ?? 0)}`)
    .join(', ');
  const lines = [
    `${st.green('✔')} indexed ${st.bold(path.relative(process.cwd(), s.root) || '.')} in ${s.seconds.toFixed(1)}s`,
    `  files   ${formatCount(s.filesScanned)} scanned: ${formatCount(s.filesNew)} new, ${formatCount(s.filesChanged)} changed, ${formatCount(s.filesUnchanged)} unchanged, ${formatCount(s.filesDeleted)} deleted${s.filesFailed ? `, ${st.yellow(`${formatCount(s.filesFailed)} failed`)}` : ''}`,
    `  skipped ${skipped || 'none'}`,
    `  written ${formatCount(s.chunks)} chunks, ${formatCount(s.symbols)} symbols, ${formatCount(s.vectors)} vectors (${formatCount(s.chunksPerSecond)} chunks/s)`,
    `  index   ${formatCount(s.totals.files)} files, ${formatCount(s.totals.chunks)} chunks in ${s.indexPath}`,
    `  model   ${s.embedder ?? 'none (keyword only)'}`,
  ];
  for (const f of s.failures.slice(0, 10))
    lines.push(st.yellow(`  warning: ${f.path}: ${f.reason}`));
  if (s.failures.length > 10)
    lines.push(st.yellow(`  ... and ${s.failures.length - 10} more failures (see --json)`));
  io.stdout.write(`${lines.join('\n')}\n`);
}
