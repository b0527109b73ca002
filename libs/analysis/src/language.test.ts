import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectLanguage } from './language.js';

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
