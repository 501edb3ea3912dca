import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lintSource } from '@secretlint/core';
import { KeywordIndex } from '../../src/redact/keywordIndex.ts';
import {
  GATE_ANCHORS,
  secretlintConfig,
  secretlintFindings,
  secretlintWindows,
} from '../../src/redact/secretlintGuard.ts';
import { isPlaceholder, isReference } from '../../src/redact/validators.ts';
import { loadClean, loadPlanted } from './corpus.ts';
import { seededRng } from './secretGen.ts';

test('secretlint on the gate windows finds what secretlint on the whole text finds', async () => {
  let compared = 0;
  for (const file of loadPlanted(seededRng(11))) {
    const whole = await lintSource({
      source: { content: file.text, filePath: file.path, contentType: 'text' },
      options: { config: secretlintConfig, maskSecrets: true },
    });
    const windowed = await secretlintFindings(file.text, file.path);
    for (const message of whole.messages) {
      const [start, end] = message.range;
      const value = file.text.slice(start, end);
      if (isPlaceholder(value) || isReference(value)) continue;
      compared++;
      assert.ok(
        windowed.some((f) => f.start < end && start < f.end),
        `${file.name}: ${message.ruleId} at ${start}-${end} lost by windowing`,
      );
    }
  }
  assert.ok(compared > 20, `only ${compared} secretlint findings compared`);
});

test('secretlint findings carry rule ids, never its message text', async () => {
  const [file] = loadPlanted(seededRng(12)).filter((f) => f.name === 'bash_history.tmpl');
  const findings = await secretlintFindings(file!.text, file!.path);
  assert.ok(findings.length > 0);
  for (const finding of findings) {
    assert.match(finding.ruleId, /^secretlint-[a-z0-9-]+$/);
    assert.deepEqual(Object.keys(finding).sort(), ['end', 'ruleId', 'start']);
  }
});

test('the AWS rule range is re-anchored on the 40-character value', async () => {
  const secret = 'Zq8mK2pL5nR7tV9xB1cD3fG5hJ7kM9pQ2sU4wY6a';
  const text = `[default]\naws_secret_access_key = ${secret}\n`;
  const findings = await secretlintFindings(text, 'credentials');
  const aws = findings.find((f) => f.ruleId === 'secretlint-aws');
  assert.ok(aws);
  assert.equal(text.slice(aws.start, aws.end), secret);
});

test('every gate line holds one of the anchors the keyword pre-filter looks for', () => {
  const samples = [
    'AWS_SECRET_ACCESS_KEY=x',
    'aws_secretAccessKey: x',
    '"private_key": "x"',
    'https://abc:x-oauth-basic@github.com',
    '//registry.npmjs.org/:_authToken=x',
    `npm_${'a'.repeat(36)}`,
    'xoxb-1-2',
    'xapp-1-2',
    'https://hooks.slack.com/services/T/B/x',
    'postgres://user:pw@db/app',
    'sk-proj-x sk-svcacct-x sk-admin-x sk-ant-api03-x',
    'lin_api_x shpat_x shppa_x shpca_x shpss_x',
    'ghp_x gho_x ghu_x ghs_x ghr_x github_pat_x ops_eyJ',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
    'SG.abc T3BlbkFJ',
  ];
  const texts = [...samples, ...loadPlanted(seededRng(12)).map((f) => f.text), ...loadClean().map((c) => c.text)];
  let lines = 0;
  for (const text of texts) {
    for (const window of secretlintWindows(text)) {
      lines++;
      const line = text.slice(window.start, window.end).toLowerCase();
      assert.ok(
        GATE_ANCHORS.some((anchor) => line.includes(anchor)),
        `no anchor in a gate line: ${line.slice(0, 60)}`,
      );
    }
  }
  assert.ok(lines > 50, `only ${lines} gate lines checked`);
});

test('windows found from the anchor lines are the windows of a whole-text gate search', () => {
  // Lines whose only anchor is `://` are searched for URL credentials alone; a line with any other anchor
  // gets every gate form.
  const index = new KeywordIndex(GATE_ANCHORS);
  const plan = { starts: GATE_ANCHORS.map(() => [0]), listCount: 1 };
  const samples = [
    'see https://example.com/docs and https://example.org\nDATABASE_URL=postgres://app:Zq8vN3kX7pL2@db/app\n',
    'remote = https://x-oauth-basic:ghp_Zq8vN3kX7pL2mW9rT4yB@github.com/org/repo.git\n',
    `curl https://hooks.slack.com/services/T0/B0/x https://user:pw@host/\nnpm_${'a'.repeat(36)} http://a\n`,
    'https://a.b/c ghp_Zq8vN3kX7pL2mW9rT4yBZq8vN3kX7pL2mW9r\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n',
  ];
  const texts = [...samples, ...loadPlanted(seededRng(13)).map((f) => f.text), ...loadClean().map((c) => c.text)];
  let windows = 0;
  for (const text of texts) {
    const anchors = index.scan(text, plan).starts[0];
    const whole = secretlintWindows(text);
    assert.deepEqual(secretlintWindows(text, [], anchors ? [...anchors] : undefined), whole);
    windows += whole.length;
  }
  assert.ok(windows > 50, `${windows} windows compared`);
});
