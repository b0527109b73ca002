import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodesiftError } from '@codesift/core';
import {
  checkedLanguage,
  detectLanguage,
  KNOWN_LANGUAGES,
  languagesForExtension,
  resolveLanguage,
} from './language.js';
import { LANGUAGES } from './languages.js';

test('languages by extension and file name', () => {
  const cases: [string, string][] = [
    ['src/main.c', 'c'],
    ['include/list.h', 'c'],
    ['src/shape.cc', 'cpp'],
    ['src/shape.cxx', 'cpp'],
    ['include/shape.hpp', 'cpp'],
    ['include/shape.hh', 'cpp'],
    ['src/Billing/Invoice.cs', 'csharp'],
    ['lib/invoice.rb', 'ruby'],
    ['Rakefile', 'ruby'],
    ['src/Invoice.php', 'php'],
    ['build.gradle.kts', 'kotlin'],
    ['src/Invoice.swift', 'swift'],
    ['src/Invoice.scala', 'scala'],
    ['scripts/deploy.sh', 'shell'],
    ['test/deploy.bats', 'shell'],
    ['lua/invoice.lua', 'lua'],
    ['infra/main.tf', 'hcl'],
    ['pyproject.toml', 'toml'],
    ['src/main.ts', 'typescript'],
    ['notes.unknown', 'text'],
  ];
  for (const [p, lang] of cases) assert.equal(detectLanguage(p), lang, p);
});

test('a language as users type it resolves through one alias table, or is refused with the list', () => {
  const cases: [string, string][] = [
    ['golang', 'go'],
    ['Go', 'go'],
    [' py ', 'python'],
    ['js', 'javascript'],
    ['ts', 'typescript'],
    ['rs', 'rust'],
    ['c++', 'cpp'],
    ['cpp', 'cpp'],
    ['cs', 'csharp'],
    ['csharp', 'csharp'],
    ['rb', 'ruby'],
    ['kt', 'kotlin'],
    ['sh', 'shell'],
    ['bash', 'shell'],
    ['markdown', 'markdown'],
  ];
  for (const [typed, id] of cases) assert.equal(resolveLanguage(typed), id, typed);
  assert.equal(resolveLanguage('klingon'), undefined);
  assert.equal(resolveLanguage(''), undefined);
  // The known ids are exactly what detectLanguage can return.
  assert.ok(KNOWN_LANGUAGES.includes('go') && KNOWN_LANGUAGES.includes('text'));
  assert.ok(!KNOWN_LANGUAGES.includes('golang'));
  assert.equal(checkedLanguage('GoLang'), 'go');
  assert.throws(
    () => checkedLanguage('klingon'),
    (e: unknown) =>
      e instanceof CodesiftError &&
      e.code === 'INVALID_ARGUMENT' &&
      e.message === `unknown language 'klingon'; known languages: ${KNOWN_LANGUAGES.join(', ')}`,
  );
});

test('every language of the table is detected by each of its extensions and file names', () => {
  for (const [id, entry] of Object.entries(LANGUAGES)) {
    for (const ext of entry.extensions) assert.equal(detectLanguage(`src/x${ext}`), id, ext);
    for (const name of entry.fileNames ?? []) assert.equal(detectLanguage(`a/${name}`), id, name);
  }
});

test('the languages a file ending in an extension can have include well-known names with that ending', () => {
  assert.deepEqual(languagesForExtension('.py'), ['python']);
  assert.deepEqual(languagesForExtension('.txt'), ['cmake', 'text']);
  assert.deepEqual(
    languagesForExtension('.PY'),
    ['python'],
    'extensions are compared in lowercase',
  );
  assert.deepEqual(languagesForExtension('.nosuchext'), ['text']);
});
