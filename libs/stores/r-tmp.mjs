import usearch from 'usearch';
import Database from 'better-sqlite3';
import { load } from 'sqlite-vec';
const { Index, exactSearch } = usearch;
const [,, M='16', efA='64', efS='64', q='f32', N='25000'] = process.argv;
const db = new Database('/tmp/codesift-bench-search/vec.db', { readonly: true }); load(db);
let t = performance.now();
const rows = db.prepare('SELECT rowid, embedding FROM chunk_vectors LIMIT ?').raw().all(Number(N));
const d = rows[0][1].length / 4, n = rows.length;
const data = new Float32Array(n * d); const keys = new BigUint64Array(n);
rows.forEach(([k, b], i) => { data.set(new Float32Array(b.buffer, b.byteOffset, d), i * d); keys[i] = BigInt(k); });
console.log("read", n, d);
const ix = new Index({ dimensions: d, metric: 'cos', quantization: q, connectivity: +M, expansion_add: +efA, expansion_search: +efS });
t = performance.now(); ix.add(keys, data, 2); const build = performance.now() - t;
const nq = 200; const qs = []; for (let i = 0; i < nq; i++) { const j = (i * 7919) % n; const v = data.slice(j * d, j * d + d); for (let k = 0; k < d; k++) v[k] += (Math.sin(i * 13 + k) * 0.02); qs.push(v); }
let hit = 0, tq = 0;
for (const v of qs) {
  const ex = exactSearch(data, v, d, 10, 'cos', 1);
  const exKeys = new Set([...ex.keys].map((x) => keys[Number(x)]));
  const t0 = performance.now(); const r = ix.search(v, 10, 1); tq += performance.now() - t0;
  for (const k of r.keys) if (exKeys.has(k)) hit++;
}
console.log(JSON.stringify({ M, efA, efS, q, n, buildMs: Math.round(build), recall10: hit / (nq * 10), queryMs: +(tq / nq).toFixed(3) }));
ix.save('/tmp/stores-work/real.usearch');
