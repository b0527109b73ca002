import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuery } from '@codesift/query';
import { isDataPath, namesDataFile } from './data-files.js';
import { focusMultiplier, planFocus } from './focus.js';

const SETTINGS = { scoring: true, multiplier: 0.5, reports: true, docMultiplier: 0.7 };

describe('build manifests, configuration and data files', () => {
  it('recognises project files, settings, lock files, ignore files and licences, not code', () => {
    for (const p of [
      'src/Polly.nuspec',
      'src/App/App.csproj',
      'Directory.Build.props',
      'package.json',
      'web/package-lock.json',
      'config/settings.yaml',
      'Cargo.lock',
      'pyproject.toml',
      'setup.cfg',
      '.gitignore',
      'docs/.gitignore',
      'LICENSE',
      'LICENSE.txt',
      'COPYING.LESSER',
      'go.sum',
      'App.xcodeproj/project.pbxproj',
      'sphinx/locale/fr/LC_MESSAGES/sphinx.po',
      'locale/messages.pot',
    ]) {
      assert.ok(isDataPath(p), p);
    }
    for (const p of [
      'src/config.py',
      'lib/json.rb',
      'src/parse_json.rs',
      'src/lock.go',
      'src/license_check.ts',
      'Makefile',
      'build.gradle',
      'src/Polly/Policy.cs',
      'README.md',
      'src/report.py',
    ]) {
      assert.ok(!isDataPath(p), p);
    }
  });

  it('is demoted for an implementation question that does not name its kind', () => {
    const code = planFocus(
      parseQuery('retry policy waits too long between attempts'),
      undefined,
      SETTINGS,
    );
    assert.equal(code.dataMultiplier, 0.7, 'the prose multiplier');
    assert.equal(focusMultiplier(code, 'src/Polly.nuspec'), 0.7);
    assert.equal(focusMultiplier(code, 'src/Retry/RetryPolicy.cs'), 1);
    // A workflow file is metadata and YAML: demoted once, as metadata.
    assert.equal(focusMultiplier(code, '.github/workflows/ci.yml'), code.metadataMultiplier);
  });

  it('is left alone when the question names the file or its format, or asks about tests', () => {
    for (const q of [
      'bump the version in package.json',
      'the csproj targets net35',
      'yaml settings are ignored',
      'add the license header',
      'update .gitignore for build output',
    ]) {
      const parsed = parseQuery(q);
      assert.ok(namesDataFile(parsed) !== null, q);
      assert.equal(planFocus(parsed, undefined, SETTINGS).dataMultiplier, 1, q);
    }
    for (const q of ['locking the config fails', 'filters drop the targets']) {
      assert.equal(namesDataFile(parseQuery(q)), null, q);
    }
    const tests = planFocus(parseQuery('which tests cover the retry policy'), undefined, SETTINGS);
    assert.equal(tests.dataMultiplier, 1, 'a test question');
    const off = planFocus(parseQuery('retry policy waits too long'), undefined, {
      ...SETTINGS,
      docMultiplier: 1,
    });
    assert.equal(off.dataMultiplier, 1, 'off with doc demotion');
  });

  it("a report's body quoting a data file does not name it, its lead line does", () => {
    const body = `${'The retry waits far longer than the policy says. '.repeat(12)}\nMy settings.json:\n\n{ "retries": 3 }\n`;
    const report = parseQuery(`Retry waits too long between attempts\n${body}`);
    assert.equal(namesDataFile(report), null);
    assert.equal(planFocus(report, undefined, SETTINGS).dataMultiplier, 0.7);
    const asks = parseQuery(`settings.json retries value is ignored\n${body}`);
    assert.equal(namesDataFile(asks), 'settings.json');
    // Off with report focus: the body counts, as before.
    const reading = planFocus(report, undefined, { ...SETTINGS, reports: false });
    assert.equal(reading.dataMultiplier, 1);
  });
});
