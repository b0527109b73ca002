/**
 * `codesift index --check`: opens the index read-only (no lock: it writes
 * nothing) and runs the stores' integrity check. Exit 0 with a summary when
 * it passes, 1 with every problem and the --rebuild hint when it does not.
 */
import { CodesiftError } from '@codesift/core';
import { type IntegrityReport, openSqliteIndex, REBUILD_HINT } from '@codesift/stores';
import { type CliIO, EXIT } from './io.js';

export function checkIndexCommand(indexPath: string, json: boolean, io: CliIO): number {
  let report: IntegrityReport;
  try {
    const index = openSqliteIndex(indexPath, { readonly: true });
    try {
      report = index.checkIntegrity();
    } finally {
      index.close();
    }
  } catch (err) {
    // Damage the open itself notices (bad header, truncation) is already INDEX_CORRUPT.
    if (err instanceof CodesiftError && err.code === 'INDEX_CORRUPT' && json) {
      io.stdout.write(
        `${JSON.stringify({ indexPath, ok: false, problems: [err.message], hint: REBUILD_HINT })}\n`,
      );
      return EXIT.failed;
    }
    throw err;
  }
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ indexPath, ...report, ...(report.ok ? {} : { hint: REBUILD_HINT }) }, null, 2)}\n`,
    );
    return report.ok ? EXIT.ok : EXIT.failed;
  }
  const c = report.checked;
  const what = `${c.files} files, ${c.chunks} chunks, ${c.vectors} vectors; pages ${c.pages}, keyword index ${c.keyword}, HNSW graph ${c.hnsw ?? 'unreadable'}`;
  if (report.ok) {
    io.stdout.write(`index ${indexPath} is intact (${what})\n`);
    return EXIT.ok;
  }
  const lines = [
    `error: index ${indexPath} failed its integrity check (${what}):`,
    ...report.problems.map((p) => `  ${p}`),
    `hint: ${REBUILD_HINT}`,
  ];
  io.stderr.write(`${lines.join('\n')}\n`);
  return EXIT.failed;
}
