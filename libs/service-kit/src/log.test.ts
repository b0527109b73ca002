import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, formatLogLine } from './log.js';

test('one JSON object per line, errors as their message, undefined fields dropped', () => {
  const line = formatLogLine(new Date(0), 'warn', 'writer', 'commit failed', {
    error: new Error('disk full'),
    path: 'a.ts',
    skip: undefined,
  });
  assert.ok(!line.includes('\n'));
  assert.deepEqual(JSON.parse(line), {
    time: '1970-01-01T00:00:00.000Z',
    level: 'warn',
    service: 'writer',
    msg: 'commit failed',
    error: 'disk full',
    path: 'a.ts',
  });
});

test('lines below the level are not written', () => {
  const lines: string[] = [];
  const log = createLogger('chunker', { level: 'info', write: (l) => lines.push(l) });
  log.debug('noise');
  log.info('started');
  log.error('boom');
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).msg),
    ['started', 'boom'],
  );
});
