// The redactor tries a rule's regex only where one of its start literals occurs
// (matchStarts.ts). That is only the same as a full search if no match can start
// anywhere else: checked here for every real rule over the corpus texts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_RULES_DIR } from '../../src/redact/createRedactor.ts';
import { loadRedactionRules } from '../../src/redact/loadRules.ts';
import { matchStarts } from '../../src/redact/matchStarts.ts';
import { loadClean, loadPlanted } from './corpus.ts';
import { seededRng } from './secretGen.ts';

describe('matchStarts', () => {
  test('reads the literals every match starts with, lower-cased and without redundant ones', () => {
    assert.deepEqual(matchStarts('password\\s*[:=]', ''), ['password']);
    assert.deepEqual(matchStarts('(?:api|secret)_key', 'i'), ['api_key', 'secret_key']);
    assert.deepEqual(matchStarts('gh[pousr]_[A-Za-z0-9]{36}', ''), ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']);
    assert.deepEqual(matchStarts('tok(?:en)?=', ''), ['tok=', 'token=']);
    assert.deepEqual(matchStarts('(?:pw)?secret', ''), ['secret', 'pwsecret']);
  });

  test('says nothing when a match could start anywhere, or the literal would be too short', () => {
    assert.equal(matchStarts('[A-Za-z]+=', ''), undefined);
    assert.equal(matchStarts('a|password', ''), undefined);
    assert.equal(matchStarts('\\w+secret', ''), undefined);
    // With i and u together, case folding reaches beyond ASCII.
    assert.equal(matchStarts('secret', 'iu'), undefined);
  });

  test('every match of every real rule, over the corpus, starts with one of its literals', () => {
    const rules = loadRedactionRules(DEFAULT_RULES_DIR);
    const texts = [
      ...[1, 2].flatMap((seed) => loadPlanted(seededRng(seed)).map((filled) => filled.text)),
      ...loadClean().map((clean) => clean.text),
    ];
    let checked = 0;
    for (const rule of rules) {
      if (!rule.starts) continue;
      for (const text of texts) {
        for (const match of text.matchAll(rule.regex)) {
          const head = text.slice(match.index, match.index + 64).toLowerCase();
          assert.ok(
            rule.starts.some((start) => head.startsWith(start)),
            `${rule.id}: a match at ${match.index} starts with none of ${rule.starts.join(', ')}`,
          );
          checked++;
        }
      }
    }
    assert.ok(checked > 1000, `the corpus exercised the rules (${checked} matches)`);
  });

  test('only rules with rare keywords, and two whose matches have no literal head, search whole texts', () => {
    // A rule without starts runs its regex over every text holding one of its keywords. With common
    // keywords (`password`, `token`, `default`, `://`) that is most texts: such a rule starts at its key
    // word and checks what comes before with a look-behind (src/redact/README.md). A rule added here
    // should say why; bench/redact/rules.ts prints what each one costs.
    const wholeText = loadRedactionRules(DEFAULT_RULES_DIR)
      .filter((rule) => !rule.starts)
      .map((rule) => rule.id)
      .sort();
    assert.deepEqual(wholeText, [
      'azure-ad-client-secret',
      'curl-user-password',
      // Its matches start at [MNO] (a base64 user id): nothing two characters long to list.
      'discord-bot-token',
      'dockerfile-env-secret',
      'dsn-password',
      'kubernetes-secret-data',
      'kubernetes-secret-data-json',
      'kubernetes-secret-string-data',
      // Its matches start at a key's quote; its keyword (stringdata) is rare.
      'kubernetes-secret-string-data-json',
      // Its matches start at a `-` after 32 hex digits.
      'mailgun-private-key',
      'markdown-table-password',
      'npmrc-auth',
      'password-hash-line',
      'pgpass-line',
      'pgpass-password',
      'server-config-password',
      'telegram-bot-token',
      'terraform-cloud-token',
    ]);
  });
});
