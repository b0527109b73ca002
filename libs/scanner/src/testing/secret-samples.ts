/*
 * Test secrets for every redaction rule. They are made up (none was ever
 * issued) and each is assembled from parts, so this source file itself holds
 * no whole token for a secret scanner to flag.
 */

const j = (...parts: string[]) => parts.join('');

/** One sample per rule: the line, and the secret inside it that must disappear. */
export const SECRET_SAMPLES: Record<string, { line: string; secret: string }> = {
  'private-key': {
    line: j(
      '-----BEGIN RSA PRIVATE',
      ' KEY-----\nMIIEowIBAAKCAQEA7\nq9Zk\n-----END RSA PRIVATE',
      ' KEY-----',
    ),
    secret: 'MIIEowIBAAKCAQEA7',
  },
  'aws-access-key': {
    line: j('aws_id = "AKIA', 'Z7Q4N2XW5R8T3YLM"'),
    secret: j('AKIA', 'Z7Q4N2XW5R8T3YLM'),
  },
  'aws-secret-key': {
    line: j('AWS_SECRET_ACCESS_KEY=', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY9q2w4e6r8t'),
    secret: j('wJalrXUtnFEMI/K7MDENG', '/bPxRfiCY9q2w4e6r8t'),
  },
  'azure-storage-key': {
    line: j(
      'conn = "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=',
      'q3Z8vX1bN4mK7pL0sD9fG2hJ5kW8eR1tY4uI7oP0aS3dF6gH9jK2lZ5xC8vB1nM4qW7eR0tY3uI6oP9aS2dF5k==',
      ';EndpointSuffix=core.windows.net"',
    ),
    secret: j(
      'q3Z8vX1bN4mK7pL0sD9fG2hJ5kW8eR1tY4uI7oP0aS3dF6gH9jK2lZ5',
      'xC8vB1nM4qW7eR0tY3uI6oP9aS2dF5k==',
    ),
  },
  'azure-client-secret': {
    line: j('client_credential = "aB3', '8Q~kR4tY7uI0oP3aS6dF9gH2jK5lZ8xC1vB4n"'),
    secret: j('aB3', '8Q~kR4tY7uI0oP3aS6dF9gH2jK5lZ8xC1vB4n'),
  },
  'github-token': {
    line: j('headers = {"Authorization": "token ghp', '_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}'),
    secret: j('ghp', '_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'),
  },
  'gitlab-token': {
    line: j('const gl = "glpat', '-Ab1Cd2Ef3Gh4Ij5Kl6Mn";'),
    secret: j('glpat', '-Ab1Cd2Ef3Gh4Ij5Kl6Mn'),
  },
  'slack-token': {
    line: j('SLACK = "xoxb', '-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"'),
    secret: j('xoxb', '-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'),
  },
  'stripe-key': {
    line: j('stripe.key("sk_', 'live_4eC39HqLyjWDarjtT1zdp7dc")'),
    secret: j('sk_', 'live_4eC39HqLyjWDarjtT1zdp7dc'),
  },
  'google-api-key': {
    line: j('maps(key="AIza', 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY")'),
    secret: j('AIza', 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'),
  },
  'openai-key': {
    line: j('client = OpenAI(api="sk-', 'proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f")'),
    secret: j('sk-', 'proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f'),
  },
  'npm-token': {
    line: j('//registry.npmjs.org/:_authToken npm', '_AbCdEf0123456789GhIjKl0123456789MnOp'),
    secret: j('npm', '_AbCdEf0123456789GhIjKl0123456789MnOp'),
  },
  jwt: {
    line: j(
      'bearer("eyJ',
      'hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")',
    ),
    secret: j(
      'eyJ',
      'hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ),
  },
  'secret-assignment': { line: 'db_password = "Xk9#mQ2$vL7pRt4z"', secret: 'Xk9#mQ2$vL7pRt4z' },
};
