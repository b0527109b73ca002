import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addRedactionCounts, redactSecrets } from './redact-secrets.js';
import { SECRET_RULES, shannonEntropy } from './secret-rules.js';
import { SECRET_SAMPLES as SAMPLES } from './testing/secret-samples.js';

test('every rule has a sample, and each sample is caught by its own rule', () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), SECRET_RULES.map((r) => r.id).sort());
  for (const [rule, { line, secret }] of Object.entries(SAMPLES)) {
    const r = redactSecrets(`before\n${line}\nafter\n`);
    assert.deepEqual(r.counts, { [rule]: 1 }, rule);
    assert.ok(!r.text.includes(secret), `${rule}: the secret is gone`);
    assert.ok(r.text.includes(`[REDACTED:${rule}]`), `${rule}: the marker names the rule`);
    assert.ok(r.text.startsWith('before\n') && r.text.endsWith('\nafter\n'), rule);
  }
});

test('line numbers stay right: a multi-line key keeps its newlines after the marker', () => {
  const text = `line 1\n${SAMPLES['private-key']!.line}\nline 6 ${SAMPLES['aws-access-key']!.line}\nline 7\n`;
  const r = redactSecrets(text);
  const lines = r.text.split('\n');
  assert.equal(lines.length, text.split('\n').length);
  assert.equal(lines[1], '[REDACTED:private-key]');
  assert.equal(lines[5], 'line 6 aws_id = "[REDACTED:aws-access-key]"');
  assert.equal(lines[6], 'line 7');
  assert.deepEqual(r.counts, { 'private-key': 1, 'aws-access-key': 1 });
});

test('a provider token in an assignment is named by its provider, once', () => {
  const r = redactSecrets(`GITHUB_TOKEN = "${SAMPLES['github-token']!.secret}"\n`);
  assert.deepEqual(r.counts, { 'github-token': 1 });
});

test('placeholders, lookups, types and low-entropy values are left alone', () => {
  const benign = [
    'password = "changeme"',
    'password = "changeme12345678"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder, on purpose
    'api_key = "${API_KEY}"',
    'token: <token>',
    'secret = "xxxxxxxxxxxxxxxx"',
    'SECRET_KEY = "your_secret_key_1234"',
    'secret = os.environ["SECRET"]',
    'apiKey: process.env.API_KEY_2',
    'password: string',
    'token = tokens[i1]',
    'passwordHash = hashPassword(input1, salt)',
    'api_key = "{{ vault_api_key_1 }}"',
    'password = "aaaaaaaa11111111"',
    'accessToken: "/var/run/secrets/token2"',
    'const sk-task-management-service-component-wrapper = 1',
    'AWS_ACCESS_KEY_ID = "AKIA" + suffix',
  ];
  for (const line of benign) {
    const r = redactSecrets(line);
    assert.deepEqual(r.counts, {}, line);
    assert.equal(r.text, line);
  }
});

test('ordinary code about tokens and keys is not flagged', () => {
  const code = [
    'token = get_token()',
    'const token = getToken();',
    'let apiKey = config.apiKey;',
    'self.secret = secret',
    'password = request.form["password"]',
    'if token == expected_token:',
    'export const TOKEN_TTL_SECONDS = 3600;',
    'access_key = os.getenv("AWS_ACCESS_KEY_ID")',
    'secret_name = "prod/db/credentials-v2"',
    'const skTaskQueue = new Queue("sk-task-queue-worker-pool-1");',
    'def check_password(plain: str, hashed: str) -> bool:',
    'headers["Authorization"] = f"Bearer {token}"',
  ].join('\n');
  const r = redactSecrets(code);
  assert.deepEqual(r.counts, {});
  assert.equal(r.text, code);
});

test('hashes and checksums in lockfiles and sum files are not flagged', () => {
  const lockfiles = [
    // package-lock.json
    '"integrity": "sha512-V6W3ai4jlA6kL2JmJd6Z0f1/0c9HkC2cA0J1Ef0jW3n7Q6u3I1wE2kHf5m0nq2x+7yV4VZ5bVq1Gm9v0S3aGQ==",',
    '"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",',
    // Cargo.lock
    'checksum = "4b8a2bd4c7c2ff4a7e2e8c0c5f2a0f7b9b9d0e3f1c8a6e4d2b0a9f8e7d6c5b4a"',
    // poetry.lock
    '{file = "pkg-1.0.tar.gz", hash = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},',
    // go.sum
    'github.com/spf13/cobra v1.8.0 h1:7aJaZx1B85qltLMc546zn58BxxfZdR/W22ej9CFoEf0=',
    // yarn.lock
    '  resolved "https://registry.yarnpkg.com/x/-/x-1.0.0.tgz#3a52e4e2c0d7e9b0e4f5d6c7b8a9e0f1d2c3b4a5"',
    // a commit pinned in a manifest
    'rev = "0f8c1b2a3d4e5f60718293a4b5c6d7e8f9a0b1c2"',
  ].join('\n');
  assert.deepEqual(redactSecrets(lockfiles).counts, {});
});

test('a GCP service-account key file: its private key is redacted even as an escaped JSON string', () => {
  const key = SAMPLES['private-key']!.line.replaceAll('\n', '\\n');
  const json = `{\n  "type": "service_account",\n  "project_id": "acme-prod",\n  "private_key": "${key}\\n",\n  "client_email": "ci@acme-prod.iam.gserviceaccount.com"\n}\n`;
  const r = redactSecrets(json);
  assert.deepEqual(r.counts, { 'private-key': 1 });
  assert.ok(!r.text.includes(SAMPLES['private-key']!.secret));
  assert.match(r.text, /"client_email": "ci@acme-prod/);
});

test('a file that is one private key reports that share; ordinary text reports none', () => {
  assert.ok(redactSecrets(`${SAMPLES['private-key']!.line}\n`).privateKeyShare > 0.9);
  const mixed = `${'const x = 1;\n'.repeat(20)}${SAMPLES['private-key']!.line}\n`;
  assert.ok(redactSecrets(mixed).privateKeyShare < 0.5);
  assert.equal(redactSecrets('nothing here\n').privateKeyShare, 0);
});

test('entropy is in bits per character', () => {
  assert.equal(shannonEntropy('aaaa'), 0);
  assert.equal(shannonEntropy('abcd'), 2);
});

test('counts add up rule by rule', () => {
  const total: Record<string, number> = { jwt: 1 };
  addRedactionCounts(total, { jwt: 2, 'npm-token': 1 });
  assert.deepEqual(total, { jwt: 3, 'npm-token': 1 });
});
