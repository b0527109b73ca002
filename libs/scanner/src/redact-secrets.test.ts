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
