import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  analyze,
  analyzeQuery,
  MAX_QUERY_TERMS,
  MAX_TERM_LENGTH,
  splitIdentifier,
} from './analyze.js';

const cases: [string, string][] = [
  ['OllamaEmbedder', 'ollamaembedder ollama embedder'],
  ['getHTTPResponse', 'gethttpresponse get http response'],
  ['XMLHttpRequest', 'xmlhttprequest xml http request'],
  // The lone `d` is a single ASCII letter and dropped; the digits stay.
  ['D40', 'd40 40'],
  ['utf8', 'utf8 utf 8'],
  ['PII-2024-0042', 'pii-2024-0042 pii 2024 0042'],
  ['__init__', '__init__ init'],
  ['snake_case_name', 'snake_case_name snake case name'],
  ['max_file_bytes', 'max_file_bytes max file bytes'],
  ['SCREAMING_CASE', 'screaming_case screaming case'],
  ['$el', '$el el'],
  ['30 CFR 75.1725', '30 cfr 75.1725 75 1725'],
  ['os.path.join(a, b)', 'os.path.join os path join'],
  ['src/scanner/walk.ts', 'src/scanner/walk.ts src scanner walk.ts walk ts'],
  ['std::vector<int>', 'std::vector std vector int'],
  ['v1.2.3', 'v1.2.3 v1 1 2 3'],
  ['http://example.com/a-b', 'http://example.com/a-b http example.com example com a-b'],
  // Edge connectors are punctuation, not part of a term.
  ['--rebuild.', 'rebuild'],
  ['end. Next', 'end next'],
  // Stop words go, code keywords stay.
  ['The scanner is walking the tree and it returns', 'scanner walking tree returns'],
  ['if (x) return null; for i in range', 'if return null for range'],
  // Repeats across the text are kept (term frequency), within one compound they are not.
  ['foo foo fooFoo', 'foo foo foofoo foo'],
  ['', ''],
  ['   ;;; ---  ', ''],
  // Identifier shapes of C++, PHP, Rust, Ruby and shell: `::` joins a compound,
  // `->` and `?`/`!` separate words, `$` stays on the variable with its bare name beside it.
  ['std::vector::push_back', 'std::vector::push_back std vector push_back push back'],
  ['$this->rate', '$this this rate'],
  ['node->next', 'node next'],
  ['def empty?; save!; end', 'def empty save end'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
  ['echo "$HOME/bin" ${TARGET}', 'echo $home/bin $home home bin target'],
  ['println!("x")', 'println'],
];

test('analyze: hand-computed term streams', () => {
  for (const [input, expected] of cases) {
    assert.deepEqual(
      analyze(input),
      expected === '' ? [] : expected.split(' '),
      JSON.stringify(input),
    );
  }
});

test('analyze: unicode letters, marks and case', () => {
  assert.deepEqual(analyze('Größe straßeName café'), [
    'größe',
    'straßename',
    'straße',
    'name',
    'café',
  ]);
  // A combining accent stays with its letter.
  assert.deepEqual(analyze('e\u0301cole'), ['e\u0301cole']);
  assert.deepEqual(analyze('ΑλφαBeta'), ['αλφαbeta', 'αλφα', 'beta']);
  assert.deepEqual(analyze('東京 タワー'), ['東京', 'タワー']);
  // A lone non-ASCII letter is a word; a lone ASCII letter is not.
  assert.deepEqual(analyze('中 x 7'), ['中', '7']);
  assert.deepEqual(analyze('emoji 🎉 here'), ['emoji', 'here']);
});

test('splitIdentifier finds the parts', () => {
  assert.deepEqual(splitIdentifier('getHTTPResponse'), ['get', 'http', 'response']);
  assert.deepEqual(splitIdentifier('parseJSON2XML'), ['parse', 'json', '2', 'xml']);
  assert.deepEqual(splitIdentifier('__init__'), ['init']);
  assert.deepEqual(splitIdentifier('D40'), ['d', '40']);
  assert.deepEqual(splitIdentifier('iOS'), ['i', 'os']);
});

test('over-long terms are dropped, their parts kept', () => {
  const long = `${'a'.repeat(40)}_${'b'.repeat(40)}`;
  assert.deepEqual(analyze(long), ['a'.repeat(40), 'b'.repeat(40)]);
  assert.deepEqual(analyze('x'.repeat(MAX_TERM_LENGTH + 1)), []);
  assert.deepEqual(analyze('x'.repeat(MAX_TERM_LENGTH)), ['x'.repeat(MAX_TERM_LENGTH)]);
});

test('analyzeQuery dedupes in order and caps the term count', () => {
  assert.deepEqual(analyzeQuery('readFile read file readFile'), ['readfile', 'read', 'file']);
  let text = '';
  for (let i = 0; i < MAX_QUERY_TERMS + 500; i++) text += `word${i} `;
  assert.equal(analyzeQuery(text).length, MAX_QUERY_TERMS);
});

test('a 20 KB string analyzes quickly and completely', () => {
  let text = '';
  for (let i = 0; text.length < 20_000; i++)
    text += `const value${i} = getHTTPResponse(max_file_bytes); // note ${i}\n`;
  const t0 = performance.now();
  const terms = analyze(text);
  const ms = performance.now() - t0;
  assert.ok(terms.includes('gethttpresponse') && terms.includes('value99'));
  assert.ok(ms < 200, `took ${ms} ms`);
});

test('throughput is tens of MB/s on code', () => {
  const line =
    'export async function loadConfig(root: string): Promise<Config> { return JSON.parse(await fs.readFile(path.join(root, "codesift.json"), "utf8")); }\n';
  const text = line.repeat(Math.ceil(4_000_000 / line.length));
  analyze(text.slice(0, 100_000)); // warm up
  // CPU time, not wall time: on a shared machine other processes stretch the
  // wall clock several times over, while a real slowdown (a regex gone
  // quadratic) shows in the CPU this process spends.
  const cpu0 = process.cpuUsage();
  analyze(text);
  const cpu = process.cpuUsage(cpu0);
  const mbps = text.length / 1e6 / ((cpu.user + cpu.system) / 1e6);
  // Loose bound so slow CI machines pass; typical is well above 10 MB/s.
  assert.ok(mbps > 3, `${mbps.toFixed(1)} MB/s of CPU time`);
});
