// The secretlint guard's gate anchors, apart from the guard itself: the scanner
// needs them in every start-up, secretlint (secretlintGuard.ts) only when a text
// holds one of them, so it is imported then.

/**
 * Literal strings (lower case) of which every gate match of secretlintGuard.ts contains one: the
 * keyword pre-filter looks for these in its one pass, and an item with none
 * of them skips the gate regexes (costly: one case-insensitive alternation
 * tried at every position) and secretlint altogether.
 */
export const GATE_ANCHORS: readonly string[] = [
  'secret_access_key',
  'secretaccesskey',
  'secret_accesskey',
  'secretaccess_key',
  'private_key',
  'x-oauth-basic',
  '_authtoken=',
  'npm_',
  'xox',
  'xapp-',
  'hooks.slack.com',
  '://',
  'sk-proj',
  'sk-svcacct',
  'sk-admin',
  'sk-ant-api0',
  'lin_api_',
  'shppa_',
  'shpca_',
  'shpat_',
  'shpss_',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'ops_ey',
  '-----begin',
  'sg.',
  't3blbkfj',
];
