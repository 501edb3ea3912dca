// Judges a matched value: real secret, or a placeholder / reference / code
// that must pass through byte for byte. False positives cost too.

import type { ValidatorSpec } from './ruleSchema.ts';
import { WORDS } from './wordLists.ts';

/** Whole values that are never secrets, compared lower-cased (rules/words.json `placeholder`). */
const PLACEHOLDER_WORDS = WORDS.placeholder;

/**
 * Documented default credentials of images and appliances (`postgres:postgres`, Zabbix's `zabbix`,
 * Dell iDRAC's `calvin`, MinIO's `minioadmin`), also with digits after them (`netapp123`, `C1sco12345`):
 * everyone who runs the product knows them, so showing one leaks nothing (src/redact/README.md, policy).
 */
const DEFAULT_CREDENTIALS = WORDS.defaultCredentials;

/** A default credential, maybe in leetspeak or capitals, with digits or punctuation after it. */
function isDefaultCredential(value: string): boolean {
  if (DEFAULT_CREDENTIALS.has(value.toLowerCase())) return true;
  // Only a short or counting tail (`netapp123`, `C1sco12345`, `Cyberark1!`): `Jenkins2024!` may be someone's real password.
  const baseLength = credentialTailStart(value);
  if (baseLength < 2 || baseLength > 16) return false;
  const base = value.slice(0, baseLength);
  const lower = base.toLowerCase();
  if (DEFAULT_CREDENTIALS.has(lower)) return true;
  // Without a leet character, unleet(base) is `lower`, looked up already.
  return LEET_CHAR.test(base) && DEFAULT_CREDENTIALS.has(unleet(base));
}

const isDigitCode = (code: number) => code >= 48 && code <= 57;
const isMarkCode = (code: number) => code === 33 || code === 63 || code === 46 || code === 35 || code === 37;

/**
 * Where the leftmost match of `(?:\d{1,3}|1234\d{0,5})?[!?.#%]*$` in `value` starts, found by reading back
 * from the end instead of trying that pattern at every position: the marks at the end, and before them `1234` and up
 * to five digits, else up to three digits, else none.
 */
function credentialTailStart(value: string): number {
  let marks = value.length;
  while (marks > 0 && isMarkCode(value.charCodeAt(marks - 1))) marks--;
  let digits = marks;
  while (digits > 0 && isDigitCode(value.charCodeAt(digits - 1))) digits--;
  // A tail that holds digits ends where the marks start: anything after a digit must be marks.
  for (let start = Math.max(digits, marks - 9); start <= marks - 4; start++) {
    if (value.startsWith('1234', start)) return start;
  }
  return marks - Math.min(3, marks - digits);
}

/** Words that mark a value as documentation rather than a secret (`YOUR_API_KEY`, `token-here`, `xxxx`). */
const PLACEHOLDER_WORD_PARTS =
  /example|placeholder|your[_-]?|dummy|changeme|change[_-]me|replace[_-]?(?:me|with|this)|insert[_-]|redacted|x{4,}|X{4,}|fake|sample|not[_-]?a[_-]?real|here$/i;

/** Shapes that mark a value as documentation: `<token>`, `***`, `...`, `[KEY]`, `aaaa`, `1234567…`, `abcdef…`. */
const PLACEHOLDER_SHAPES =
  /^<|>$|^\*{3,}|\*{4,}|\.{3}|…|<[^>\n]*>|\[[A-Za-z _-]*\]|^(.)\1+$|^[0-9]*1234567|^(?:abc|ABC)def/;

const isQuote = (c: number) => c === 34 || c === 39 || c === 96;

/** Brackets or ellipsis that hold or make a placeholder: a word of three letters in `<…>` or `[…]`, or a value that opens or closes with one. */
const BRACKET_PLACEHOLDER =
  /^<|>$|<[^>\n]*[A-Za-z]{3}[^>\n]*>|\[[A-Za-z _-]*[A-Za-z]{3}[A-Za-z _-]*\]|\*{3}|\.{3}|…|^(.)\1+$|^[0-9]*1234567|^(?:abc|ABC)def/;

/**
 * A long random value whose characters happen to make a bracket (`…xHt<#>T-5m3…`, `…[]…` in a WordPress
 * salt of 64 printable characters): no word inside, and the whole is as random as a generator makes it.
 */
function isRandomAroundBrackets(v: string): boolean {
  return v.length >= 32 && shannonEntropy(v) >= 4.5 && !BRACKET_PLACEHOLDER.test(v);
}

/**
 * Whether PLACEHOLDER_SHAPES can match at all: each of its forms needs one of `< > * . … [` somewhere, the
 * first two characters alike, a first `a`/`A`, or `1234567`; checked without running it on every value.
 */
function mayBePlaceholderShape(v: string): boolean {
  const first = v.charCodeAt(0);
  if (first === 97 || first === 65 || (v.length >= 2 && first === v.charCodeAt(1))) return true;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 60 || c === 62 || c === 42 || c === 46 || c === 8230 || c === 91) return true;
  }
  return v.includes('1234567');
}

/**
 * Runs of random-looking characters (lower and upper case and digits together), where a
 * placeholder word can only be there by chance: about one random token in 20,000 holds
 * `your`, `fake`, `here`… and must not pass as a placeholder for it.
 */
const MIXED_RUN = /[A-Za-z0-9]{10,}/g;
const CAPITAL_WORD_PART = /EXAMPLE|PLACEHOLDER|YOUR|DUMMY|CHANGEME|REDACTED|FAKE|SAMPLE|XXXX/;
const LOWER = /[a-z]/;
const UPPER = /[A-Z]/;
const DIGIT = /\d/;
const isMixedRun = (run: string) => LOWER.test(run) && UPPER.test(run) && DIGIT.test(run);

function hasPlaceholderWord(value: string): boolean {
  if (!PLACEHOLDER_WORD_PARTS.test(value)) return false;
  // A long token of high entropy with every character class is random, whatever words it happens to
  // spell, unless one is written as a word in capitals (AWS's documented `…EXAMPLEKEY`).
  if (value.length >= 32 && isMixedRun(value) && shannonEntropy(value) >= 4 && !CAPITAL_WORD_PART.test(value))
    return false;
  return PLACEHOLDER_WORD_PARTS.test(value.replace(MIXED_RUN, (run) => (isMixedRun(run) ? ' ' : run)));
}

/** Values made only of placeholder-ish words (rules/words.json `compoundParts`): `super-secret-key`, `my_api_key_123`, `not-a-real-token`, `dev-secret`. */
const PLACEHOLDER_COMPOUND = new RegExp(
  `^(?=[^a-z]*[a-z]{2})(?:(?:\\d{1,6}|[a-z]|user\\d|${[...WORDS.compoundParts].map(escapeRegex).join('|')})\\d{0,4}(?:[_. :-]|$))+$`,
  'i',
);

function escapeRegex(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Letters-only values that spell the key itself (`dbpassword`, `mysecrettoken`): docs, not secrets. */
const NAMES_ITSELF = /^[a-z]*(?:pass|pwd|secret|token|apikey|encryptionkey|signingkey|privatekey)[a-z]*\d{0,3}$/i;

/** Public material that looks like a key: publishable keys, SSH public keys, certificates. */
const PUBLIC_MATERIAL =
  /^(?:pk_(?:live|test)_|ssh-(?:rsa|ed25519|dss) |ecdsa-sha2-|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|PGP PUBLIC|RSA PUBLIC|SSH2 PUBLIC))/;

/** Forms that point at a secret held elsewhere (BOSH, Concourse and CredHub write `((name))`, `((cert.private_key))`). */
const REFERENCE =
  /^-----BEGIN |^\$+\{?[A-Za-z_][A-Za-z0-9_]*\}?$|^\$\{.*\}$|^\$\{\{.*\}\}$|^\$[A-Za-z_][A-Za-z0-9_]*$|^\$\(.*\)$|^%(?:env\([\w:.-]+\)|[A-Za-z_][\w.]*)%$|^\{\{.*\}\}$|^\(\([ \t]*[a-z_/][a-z0-9_./-]*[ \t]*\)\)$|^\{[A-Za-z_][\w.]*\}$|^<%.*%>$|^#\{.*\}$|^@[A-Za-z_]+@$|^%\([A-Za-z_]+\)s$|^!(?:Ref|Sub|GetAtt|secret|vault|ImportValue|env)\b|^(?:vault|ref\+\w+|op|secretsmanager|ssm|awskms|gcpkms|azurekeyvault|sops|env|file|k8s|keyring):|^ENC\[|^arn:aws|\$\{|\{\{|process\.env|import\.meta\.env|os\.environ|os\.getenv|getenv\(|System\.getenv|Deno\.env|env::var|ENV\[|ENV\.fetch|secrets\.[A-Z_]|config\(|settings\.[A-Z_]|secretKeyRef|valueFrom/;

/** A template's own placeholder for a value filled in later (`@SECRET_KEY` in ansible-test's `*.template`). */
const TEMPLATE_MARKER = /^@[A-Z][A-Z0-9_]{2,}$/;

/** A call whose result is the value, at run time: `mysql.authPlugins.caching_sha2_password({`. */
const CALL = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\(\{?$/;

/** Ansible's `lookup('password', '/dev/null chars=ascii_letters length=16')`: the file a generated password lives in. */
const LOOKUP_FILE = /^(?:\.{0,2}\/)[\w./-]*(?:\s+[a-z_]+=[\w,]+)+$/;

/**
 * Unquoted values that are paths, file names or URLs, not secrets
 * (`PRIVATE_KEY=./keys/dev.pem`). Credentials inside a URL are the URL rules' job.
 */
const PATH_OR_URL = /^(?:\.{1,2}|~)?\/[\w.\-/]*$|^[A-Za-z]:\\|^[a-z][a-z0-9+.-]{1,20}:\/\/\S*$|^-?\d{1,5}$/;
const KEY_FILE_NAME_END =
  /[\w-]\.(?:pem|key|json|txt|p12|pfx|crt|cer|der|jks|ya?ml|env|pub|asc|gpg|conf|cfg|ini|toml)$/;
/** Backtracks on long word values (n² steps): run only on values whose end already reads like a key file name. */
const KEY_FILE_PATH =
  /^[\w.-]*(?:\/[\w.-]+)*\/?[\w-]+\.(?:pem|key|json|txt|p12|pfx|crt|cer|der|jks|ya?ml|env|pub|asc|gpg|conf|cfg|ini|toml)$/;

/** Unquoted values that are code, types or plain words (`password: string`, `token: req.body.token`). */
const CODE_OR_WORD =
  /^[A-Za-z_$][A-Za-z_$]*(?:!?\??\.[A-Za-z_$][\w$]*|!?\[[^\]]*\])+[!;,]?$|^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*\(|^(?:this|self|process|config|cfg|conf|settings|env|os|options|opts|params|req|request|ctx|context|props|state|args|data|creds|credentials|secrets|app|window|global|values|Values|vars|inputs|input|user|auth|session|current|result|response|res|body|payload|form|keys|tokens|Config|Settings|System|Environment|ENV|os\.environ)(?:[.[]|$)|^(?:\.{1,2}|~)?\/[\w.\-/]*$|^[A-Za-z]:\\|^https?:\/\/[^@\s]*$|^(?:Optional|Option|Secret|SecretStr|Buffer|Uint8Array|Array|List|Vec|Box|Promise|Record|Map)\b.*[<[(]|^[A-Za-z_]+[!;,]?$|^-?\d{1,5}$|^\/[\^[\\(]|^0x[0-9A-Fa-f]+[;,]?$|^[\w.$]+(?:&&|\|\|)/;

/** Version numbers and ranges (`11.7.1`, `^2.1.34`, `v1.2.3-beta.1`) sit next to package names such as `1password`. */
const VERSION = /^[v^~=<>]*\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/;

// Hot helpers' patterns, made once (a regex literal in a function is a new object at each call).
const OUTER_QUOTES = /^["'`]|["'`]$/g;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
const TRAILING_MARKS = /[!?.#%]+$/;
const JOINERS = /[-_ .]/g;
const NOT_ALNUM = /[^a-z0-9]/g;
const TRAILING_I = /i$/;
const ALL_I = /i/g;
const BRACKETS_AND_MARKS = /[()[\]{}/\\'"^&*+=~-]/g;
const WORD_SEPARATOR = /[-_. @]/;
const TWO_LETTERS = /[a-z]{2}/;
const ABSOLUTE_PATH = /^(?:~|\.{1,2})?\/[\w.\-/]+$/;
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const WHITESPACE = /\s+/g;
const BASE64_TEXT = /^[A-Za-z0-9+/_-]+={0,2}$/;
const NOT_PRINTABLE_UTF8 = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
const PRINTABLE_ASCII = /^[\x20-\x7e\t\r\n]+$/;
// Letters of any script (with their combining marks), spaces and a sentence's punctuation: no digit, no
// symbol, so nothing a generator draws from. `>` is a prompt's, « » „ “ ” ‘ ’ 「 」 are other languages'
// quotes, ，、：；。？！（） the full-width marks of Chinese and Japanese.
// French typography puts a no-break space before `?`, `!`, `:` and inside « » (U+00A0, U+202F).
const PROSE_CHARS = /^[\p{L}\p{M}‘][\p{L}\p{M} \u00a0\u202f,.'‘’!?:;>()«»„“”"「」，、：；。？！（）-]*$/u;
const PROSE_WORD = / [\p{L}]/u;
// A sentence starts with a capital or a letter of a script without case (Arabic, Han), or ends as one does.
const PROSE_ENDS = /^‘?[\p{Lu}\p{Lt}\p{Lo}]|[.!?:。？！：]$/u;
const NON_ASCII_LETTER = /[^\x00-\x7f]/;

/** `p@ssw0rd`, `s3cr3t`, `pa$$word`: leetspeak of a placeholder word is still a placeholder. */
const LEET_CHAR = /[@4$5037!|1]/;
const UNLEET: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  $: 's',
  '5': 's',
  '0': 'o',
  '3': 'e',
  '1': 'i',
  '!': 'i',
  '|': 'i',
  '7': 't',
};
// One pass over the value: it runs on most short candidate values (isDefaultCredential, isObviouslyFake).
const UNLEET_CODE = new Uint8Array(128);
for (const [leet, plain] of Object.entries(UNLEET)) UNLEET_CODE[leet.charCodeAt(0)] = plain.charCodeAt(0);

export function unleet(value: string): string {
  const lower = value.toLowerCase();
  let i = 0;
  while (i < lower.length && !(lower.charCodeAt(i) < 128 && UNLEET_CODE[lower.charCodeAt(i)] !== 0)) i++;
  if (i === lower.length) return lower;
  let plain = lower.slice(0, i);
  for (; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    const mapped = code < 128 ? UNLEET_CODE[code]! : 0;
    // Code units one by one: a surrogate pair is appended as its two halves, the same string.
    plain += mapped !== 0 ? String.fromCharCode(mapped) : lower[i];
  }
  return plain;
}

const LEET_OR_TRAILING_I = /[@4$5037!|1]|i$/i;

export function isPlaceholder(value: string): boolean {
  const trimmed = value.trim();
  const v =
    isQuote(trimmed.charCodeAt(0)) || isQuote(trimmed.charCodeAt(trimmed.length - 1))
      ? trimmed.replace(OUTER_QUOTES, '')
      : trimmed;
  if (v.length === 0) return true;
  if (PLACEHOLDER_WORDS.has(v.toLowerCase()) || VERSION.test(v)) return true;
  // base64 of a PEM's armor with no key inside (a doc's `tls.key: LS0tLS1CRUdJTi…` of BEGIN and END lines).
  if (v.startsWith('LS0tLS1CRUdJTi') && v.length <= 400) {
    const decoded = decodeBase64(v, false);
    if (decoded !== undefined && isPemWithoutKey(decoded)) return true;
  }
  // Only short values with a leet character (or a trailing i) can unleet to a placeholder word; skip the rest cheaply.
  if (v.length <= 24 && LEET_OR_TRAILING_I.test(v)) {
    const plain = unleet(v).replace(TRAILING_I, '');
    if (plain !== v.toLowerCase() && (PLACEHOLDER_WORDS.has(plain) || PLACEHOLDER_WORDS.has(plain.replace(ALL_I, 'l'))))
      return true;
  }
  if (
    SPELLED_TOKEN.test(v) ||
    (mayBePlaceholderShape(v) && PLACEHOLDER_SHAPES.test(v) && !isRandomAroundBrackets(v)) ||
    hasPlaceholderWord(v) ||
    PLACEHOLDER_COMPOUND.test(v) ||
    NAMES_ITSELF.test(v) ||
    PUBLIC_MATERIAL.test(v) ||
    ENCRYPTED.test(v)
  ) {
    return true;
  }
  return isObviouslyFake(v);
}

/** A token whose body after its prefix is spelled in words (`ghp_PersonalAccessToken0124…000`): a README's sample; a generated body never reads so. */
const SPELLED_TOKEN = /^[a-z]{2,6}_(?:[A-Z][a-z]+){3,}\d*$/;

/**
 * Values that say what they are: `wrong-password`, `correct horse battery staple`, `S0meP@ss`,
 * `mySuperSecretPassw0rd!`, `p@ss(word)`, `testing123!`, `top%20secret`, a default credential, or a
 * URL whose password is one of these (`postgres://postgres:postgres@localhost`).
 */
function isObviouslyFake(v: string): boolean {
  const url = v.length <= 300 ? URL_CREDENTIALS.exec(v) : null;
  if (url) {
    const [, user, password] = url;
    return password === user || isPlaceholder(password!) || isReference(password!);
  }
  if (mayBeNotAValue(v) && NOT_A_VALUE.test(v)) return true;
  if (v.length > 40) return false;
  if (PERCENT_ESCAPE.test(v)) {
    try {
      const decoded = decodeURIComponent(v);
      if (decoded !== v) return isPlaceholder(decoded);
    } catch {
      // not %-encoded after all
    }
  }
  // Without a mark at the end, `trimmed` is `v`: skip building it.
  const trimmed = isMarkCode(v.charCodeAt(v.length - 1)) ? v.replace(TRAILING_MARKS, '') : v;
  if (
    trimmed !== v &&
    trimmed.length > 0 &&
    (PLACEHOLDER_WORDS.has(trimmed.toLowerCase()) || PLACEHOLDER_COMPOUND.test(trimmed))
  )
    return true;
  // A placeholder word with a counting tail (`Testing!123`, `Secret#1`): the way a person fills a password field in a demo.
  const word = PLACEHOLDER_TAIL.exec(v);
  if (word && word[1]!.length >= 4 && PLACEHOLDER_WORDS.has(word[1]!.toLowerCase())) return true;
  // The same word with digits and marks on both sides (`2Password2`, `Pass123$`).
  const wrapped = WRAPPED_WORD.exec(v);
  if (wrapped && PLACEHOLDER_WORDS.has(wrapped[1]!.toLowerCase())) return true;
  if (
    isDefaultCredential(v) ||
    PORT_MAPPING.test(v) ||
    isCounting(v) ||
    isWordCompound(v) ||
    isRunTogether(v) ||
    isFillerParts(v)
  )
    return true;
  // Words run together that name the key (`spectacular-password`, `My3ncryptionkey` below).
  if (joinedWordsOnly(v) && NAMES_ITSELF.test(v.replace(JOINERS, ''))) return true;
  // Leetspeak and punctuation around a word that names the key itself (`$ecur3p4$$w0rd`, `p@ss(word)`).
  if (v.length <= 32 && LEET_OR_TRAILING_I.test(v)) {
    const plain = unleet(v.replace(BRACKETS_AND_MARKS, '')).replace(TRAILING_I, '');
    if (NAMES_ITSELF.test(plain) || PLACEHOLDER_WORDS.has(plain) || PLACEHOLDER_COMPOUND.test(plain)) return true;
    // Leetspeak of placeholder words run together (`s1mpl3`, `$up3rs3cur3`) or joined (`My-Cust0m_S3cR3T`),
    // or of words that describe a value (`My_R@ndom-P@ssw0rd`, `something-r@nd0m!`, `V3ry_L0ng-Pa55w0rd`).
    if (
      isRunTogether(plain) ||
      isWordCompound(unleet(v)) ||
      isDescribingCompound(unleet(v.replace(TRAILING_MARKS, '')))
    )
      return true;
    // One typo or digit away from the word itself: `pas4word`, `passw0rdd`.
    if (oneEditFrom(v.toLowerCase(), 'password') || oneEditFrom(plain, 'password')) return true;
  }
  return false;
}

/**
 * What a loose pattern can take for a value when the real one is elsewhere: a flag (`--extra-vars`), a key
 * with its `=` (`token=`), a lone backslash or quote,
 * a template variable through a filter (`item.pass_key|string+`), a protocol-relative URL, a module path
 * (`django.core.signing`).
 */
const NOT_A_VALUE =
  /^--[a-z][a-z0-9-]+$|^[A-Za-z_]+=$|^[^A-Za-z0-9]{1,2}$|^[A-Za-z_]\w*(?:\.\w+)*\|\w+|^\/\/[\w-]+(?:\.[\w-]+)+\/|^[a-z_]+(?:\.[a-z_]+){2,}$/;

/**
 * Whether NOT_A_VALUE can match at all: each of its forms needs one of these (a leading `-` or `/`, a
 * trailing `=`, two characters at most, a `|` or a `.`), checked without running it on every value.
 */
function mayBeNotAValue(v: string): boolean {
  const first = v.charCodeAt(0);
  return (
    v.length <= 2 ||
    first === 45 ||
    first === 47 ||
    v.charCodeAt(v.length - 1) === 61 ||
    v.includes('|') ||
    v.includes('.')
  );
}

/**
 * `v` holds a joiner (`-_ .`) and otherwise only ASCII letters and digits: else removing the joiners
 * changes nothing, or leaves a character NAMES_ITSELF never matches.
 */
function joinedWordsOnly(v: string): boolean {
  let joiner = false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 45 || c === 95 || c === 32 || c === 46) joiner = true;
    else if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  }
  return joiner;
}

/** `docker run -p 8080:80/tcp`, `-p 127.0.0.1:5432:5432`: a port mapping after `-p`, not a password. */
const PORT_MAPPING = /^(?:\d{1,3}(?:\.\d{1,3}){3}:)?\d{1,5}(?:-\d{1,5})?:\d{1,5}(?:-\d{1,5})?(?:\/(?:tcp|udp|sctp))?$/;

/**
 * `a` then `b` is a step of `0123456789` or of `abcdefghijklmnopqrstuvwxyz` (what `walk.includes(pair)`
 * says of a two-character pair), without building the pair: it runs at each character of each short value.
 */
function isWalkStep(a: number, b: number): boolean {
  return b === a + 1 && ((a >= 48 && b <= 57) || (a >= 97 && b <= 122));
}

/**
 * `1234568`, `123456abcdefg`: mostly counting, typed by a person writing docs. Judged on the value's
 * letters and digits, lower-cased: their walk share (walkShare), or, for counting interleaved with one
 * repeated letter (`a1a2a3a4`), the digits' walk share and the letters all alike. One pass without
 * building strings: it runs on nearly every short candidate value.
 */
function isCounting(v: string): boolean {
  let n = 0;
  let covered = 0;
  let run = 1;
  let prev = 0;
  let digits = 0;
  let digitsCovered = 0;
  let digitRun = 1;
  let prevDigit = 0;
  let letter = 0;
  let lettersAlike = true;
  for (let i = 0; i < v.length; i++) {
    let c = v.charCodeAt(i);
    // Lower-casing can turn a non-ASCII character into ASCII letters (K, the Kelvin sign): the long way.
    if (c >= 128) return isCountingText(v);
    if (c >= 65 && c <= 90) c += 32;
    const isDigit = c >= 48 && c <= 57;
    if (!isDigit && (c < 97 || c > 122)) continue;
    if (n > 0) {
      if (isWalkStep(prev, c)) run++;
      else {
        if (run >= 3) covered += run;
        run = 1;
      }
    }
    prev = c;
    n++;
    if (isDigit) {
      if (digits > 0) {
        if (isWalkStep(prevDigit, c)) digitRun++;
        else {
          if (digitRun >= 3) digitsCovered += digitRun;
          digitRun = 1;
        }
      }
      prevDigit = c;
      digits++;
    } else if (letter === 0) letter = c;
    else if (c !== letter) lettersAlike = false;
  }
  if (n < 6 || n > 24) return false;
  if (run >= 3) covered += run;
  if (covered / n >= 0.6) return true;
  if (digitRun >= 3) digitsCovered += digitRun;
  return digits >= 3 && digitsCovered / digits >= 0.99 && letter !== 0 && lettersAlike;
}

/** isCounting on the lower-cased text itself, for values with non-ASCII characters. */
function isCountingText(v: string): boolean {
  const s = v.toLowerCase().replace(NOT_ALNUM, '');
  if (s.length < 6 || s.length > 24) return false;
  if (walkShare(s) >= 0.6) return true;
  const digits = s.replace(/[a-z]/g, '');
  const letters = s.replace(/\d/g, '');
  return digits.length >= 3 && walkShare(digits) >= 0.99 && /^([a-z])\1*$/.test(letters);
}

function walkShare(s: string): number {
  let covered = 0;
  let run = 1;
  for (let i = 1; i <= s.length; i++) {
    if (i < s.length && isWalkStep(s.charCodeAt(i - 1), s.charCodeAt(i))) run++;
    else {
      if (run >= 3) covered += run;
      run = 1;
    }
  }
  return covered / s.length;
}

/** Extra words of an obviously made-up value, beside the placeholder and default-credential words. */
const COMPOUND_WORDS = WORDS.madeUpParts;

/**
 * Placeholder words run together without a separator (`supersecure`, `vaultpw`, `mysecretpassword`): split
 * into known words of three letters or more (`my` and `pw` too), left to right; a random or chosen word
 * does not split so.
 */
function isRunTogether(v: string): boolean {
  if (v.length < 6 || v.length > 32 || !LOWER_LETTERS.test(v)) return false;
  const ends = new Uint8Array(v.length + 1);
  ends[0] = 1;
  for (let i = 0; i < v.length; i++) {
    if (!ends[i]) continue;
    for (let j = i + 2; j <= Math.min(v.length, i + 12); j++) {
      const part = v.slice(i, j);
      if ((part.length >= 3 || part === 'my' || part === 'pw') && isRunTogetherWord(part)) ends[j] = 1;
    }
  }
  return ends[v.length] === 1;
}

const LOWER_LETTERS = /^[a-z]+$/;
// A product's documented default is a word of a made-up value too (`myodoo`).
const isRunTogetherWord = (part: string) =>
  COMPOUND_WORDS.has(part) ||
  PLACEHOLDER_WORDS.has(part) ||
  WORDS.runTogether.has(part) ||
  DEFAULT_CREDENTIALS.has(part);

/**
 * A value typed to fill a field: parts split at `- _ / .` that are each a known placeholder word or a
 * short run repeated (`xxx-yyy-zzz`, `api-xxx`, `aaa-bbb-ccc`, a keyboard's `asdasdasd/asdasdas/asdasd`),
 * at least one of them repeated; or one part that is a word repeated (`privatekeyprivatekey…`). A random
 * value is never periodic.
 */
function isFillerParts(v: string): boolean {
  if (v.length < 3 || v.length > 120) return false;
  const parts = v.toLowerCase().split(FILLER_SEPARATOR);
  if (parts.length === 1) return v.length >= 6 && periodOf(parts[0]!, parts[0]!.length >> 1) > 0;
  let repeated = 0;
  for (const part of parts) {
    if (part.length === 0) return false;
    if (part.length >= 3 && periodOf(part, 3) > 0) repeated++;
    else if (!(PLACEHOLDER_WORDS.has(part) || COMPOUND_WORDS.has(part) || WORDS.compoundParts.has(part))) return false;
  }
  return repeated > 0;
}
const FILLER_SEPARATOR = /[-_/.]/;

/** The shortest period of `s` up to `max` (`s[i] === s[i - p]` throughout, `s` at least twice `p`), or 0. */
function periodOf(s: string, max: number): number {
  for (let p = 1; p <= max && 2 * p <= s.length; p++) {
    let i = p;
    while (i < s.length && s.charCodeAt(i) === s.charCodeAt(i - p)) i++;
    if (i === s.length) return p;
  }
  return 0;
}

/** `zabbix-server`, `dell@force10`: every part a placeholder, a default credential or a made-up value's word. */
function isWordCompound(v: string): boolean {
  const lower = v.toLowerCase();
  // Without a separator there is one part only.
  if (!WORD_SEPARATOR.test(lower) || !TWO_LETTERS.test(lower)) return false;
  // The parts `lower.split(/[-_. @]+/)` gives, one at a time (a split builds them all, and splitting by a
  // regex costs more than judging the parts): the text between runs of separators, with an empty part
  // before a leading run and after a trailing one.
  let start = 0;
  for (;;) {
    let end = start;
    while (end < lower.length && !isWordSeparator(lower.charCodeAt(end))) end++;
    if (!isCompoundPart(lower.slice(start, end))) return false;
    if (end === lower.length) return true;
    start = end;
    while (start < lower.length && isWordSeparator(lower.charCodeAt(start))) start++;
  }
}

/**
 * Leetspeak undone, two or more parts joined by `- _ .` or a blank, each a word that describes a value or a
 * made-up one (rules/words.json `describing`, `madeUpParts`, `compoundParts`, placeholders) with up to four
 * digits after it: a value that says what it is (`my_random-password`, `something-random`). Only reached for a
 * value with a leet character: a person writing a real password in leetspeak picks words of their own.
 */
function isDescribingCompound(plain: string): boolean {
  const parts = plain.split(DESCRIBING_SEPARATORS);
  if (parts.length < 2) return false;
  for (const part of parts) {
    const word = part.replace(DIGITS_AT_END, '');
    if (
      word.length === 0 ||
      !(
        WORDS.describing.has(word) ||
        COMPOUND_WORDS.has(word) ||
        WORDS.compoundParts.has(word) ||
        PLACEHOLDER_WORDS.has(word)
      )
    )
      return false;
  }
  return true;
}
const DESCRIBING_SEPARATORS = /[-_. ]+/;
const DIGITS_AT_END = /\d{1,4}$/;

const isWordSeparator = (c: number) => c === 45 || c === 95 || c === 46 || c === 32 || c === 64;

/** A part of a made-up compound: a number of up to six digits, or a known word with up to four digits after it. */
function isCompoundPart(part: string): boolean {
  let digits = part.length;
  while (digits > 0 && isDigitCode(part.charCodeAt(digits - 1))) digits--;
  if (digits === 0 && part.length <= 6) return true;
  // `part` without the up to four digits that end it.
  const word = part.slice(0, part.length - Math.min(4, part.length - digits));
  return (
    DEFAULT_CREDENTIALS.has(part) ||
    COMPOUND_WORDS.has(word) ||
    DEFAULT_CREDENTIALS.has(word) ||
    PLACEHOLDER_WORDS.has(word)
  );
}

/** `a` and `b` differ by one substitution, insertion or deletion. */
function oneEditFrom(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return a === b;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(i + 1) === b.slice(i + 1) || a.slice(i) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i);
}

/** A word, then marks and up to four digits (`Testing!123`). */
const WRAPPED_WORD = /^[\d!?.#%@$*+/-]{0,4}([A-Za-z]{4,})[\d!?.#%@$*+/-]{1,6}$/;
const PLACEHOLDER_TAIL = /^([A-Za-z]+)[!?.#%@]*(?:1|12|123|1234|\d)?[!?.#%]*$/;

/** `scheme://user:password@host`: judged by its password. */
const URL_CREDENTIALS = /^[a-z][a-z0-9+.-]{1,20}:\/\/([^:@/\s]*):([^@/\s]+)@[^\s]*$/i;

/**
 * Values that are already encrypted, safe to show: SOPS `ENC[AES256_GCM,…]`, an Ansible vault,
 * an age file, a Bitnami sealed secret (`AgB…`, hundreds of base64 characters: the RSA-wrapped session key
 * comes first, so every one starts alike).
 */
const ENCRYPTED =
  /^ENC\[(?:AES256_GCM|PGP),|^\$ANSIBLE_VAULT;\d\.\d;|^-----BEGIN AGE ENCRYPTED FILE-----|^Ag[A-D][A-Za-z0-9+/]{300,}={0,2}$/;

export function isReference(value: string): boolean {
  const v = value.trim();
  return REFERENCE.test(v) || ENCRYPTED.test(v) || TEMPLATE_MARKER.test(v) || LOOKUP_FILE.test(v) || CALL.test(v);
}

export function isCodeOrWord(value: string): boolean {
  return CODE_OR_WORD.test(value.trim()) || isPathOrUrl(value);
}

export function isPathOrUrl(value: string): boolean {
  const v = value.trim();
  return PATH_OR_URL.test(v) || (KEY_FILE_NAME_END.test(v) && KEY_FILE_PATH.test(v));
}

/** Per-character counts for ASCII values, reused: no Map per value on the hot path. */
const asciiCounts = new Int32Array(128);
const firstSeen: number[] = [];

export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  if (ASCII_ONLY.test(value)) {
    // Same sum in the same order (characters by first occurrence) as the general path below, so the same bits.
    firstSeen.length = 0;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (asciiCounts[code] === 0) firstSeen.push(code);
      asciiCounts[code]!++;
    }
    let bits = 0;
    for (const code of firstSeen) {
      const p = asciiCounts[code]! / value.length;
      bits -= p * Math.log2(p);
      asciiCounts[code] = 0;
    }
    return bits;
  }
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** How many of lower case, upper case, digits and anything else occur (one pass, no regex per class). */
function charClasses(value: string): number {
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let other = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 97 && code <= 122) lower = 1;
    else if (code >= 65 && code <= 90) upper = 1;
    else if (code >= 48 && code <= 57) digit = 1;
    else other = 1;
  }
  return lower + upper + digit + other;
}

/**
 * The decoded text, or undefined when the value is not base64. With
 * `printable`, also undefined unless it decodes to printable UTF-8, so that
 * words such as `prod` or `frontend` are not judged as base64.
 */
/** Base64 of random bytes: 16 characters or more mixing upper case, lower case and digits (a word or a name does not). */
function isGeneratedBase64(value: string): boolean {
  const v = value.replace(/=+$/, '');
  return v.length >= 16 && /[A-Z]/.test(v) && /[a-z]/.test(v) && /[0-9]/.test(v);
}

function decodeBase64(value: string, printable: boolean): string | undefined {
  const compact = value.replace(WHITESPACE, '');
  if (!BASE64_TEXT.test(compact)) return undefined;
  const decoded = Buffer.from(compact, 'base64').toString('utf8');
  if (printable && NOT_PRINTABLE_UTF8.test(decoded)) return undefined;
  return decoded;
}

/**
 * A label or message with no digits, in any human language ("API key", "Your session token has
 * expired", a translation: "Nueva contraseña", "Jelszó", "كلمة المرور") is not a secret; a lower-case
 * passphrase ("correct horse battery staple") is. One word passes only when a letter beyond ASCII shows
 * it is a language's word (`Contraseña`), not a capitalised password (`Dragon`).
 */
export function isProse(value: string): boolean {
  return PROSE_CHARS.test(value) && PROSE_ENDS.test(value) && (PROSE_WORD.test(value) || NON_ASCII_LETTER.test(value));
}

const CONSONANT_RUN = /[b-df-hj-np-tv-xz]+/g;
/** The longest run of consonants (y counts as a vowel) that English words do not write (rules/words.json englishClusters). */
function longestForeignRun(word: string): number {
  let longest = 0;
  for (const run of word.match(CONSONANT_RUN) ?? []) {
    if (run.length > longest && (run.length < 3 || !WORDS.englishClusters.has(run))) longest = run.length;
  }
  return longest;
}

/**
 * Lower-case words of random letters (`nzzh slzlmdk embkt eblpu frotf`), as a generated passphrase is written,
 * not a sentence: one word with a run of four consonants and another word, of four letters or more, with a run
 * of three, where neither run is one English writes (`strength`, `password`, `extra`). An acronym among words
 * (`grpc server tls support`) has no second such word.
 */
export function isGeneratedWords(value: string): boolean {
  const words = value.split(/[ \t]+/);
  if (words.length < 2 || words.length > 12) return false;
  const runs = words.map((word) => longestForeignRun(word));
  const four = runs.findIndex((n) => n >= 4);
  return four !== -1 && runs.some((n, i) => i !== four && n >= 3 && words[i]!.length >= 4);
}

export interface ValueContext {
  /** The value came from a group named `bare`: unquoted, in a style where code and types appear (YAML, code). */
  bare: boolean;
  /** The value came from a group named `envval`: unquoted, shell/dotenv style, where words are literal. */
  envStyle: boolean;
}

/** Relative cost of each validator: length and character counts first, the regex-heavy judgements last. */
function validatorCost(validator: ValidatorSpec): number {
  if (typeof validator !== 'string') {
    if ('min-length' in validator) return 0;
    if ('char-classes' in validator) return 1;
    if ('entropy' in validator) return 2;
    return 6;
  }
  return (
    { 'not-reference': 3, 'generated-words': 3, 'not-code-or-word': 4, 'not-placeholder': 5, 'not-base64-text': 5 }[
      validator as string
    ] ?? 6
  );
}

/**
 * The same validators, cheapest first. Each one is a pure yes/no and a value
 * must pass all of them, so the order changes only how soon a value is rejected.
 */
export function orderByCost(validators: readonly ValidatorSpec[]): ValidatorSpec[] {
  return [...validators].sort((a, b) => validatorCost(a) - validatorCost(b));
}

export function acceptsValue(value: string, validators: ValidatorSpec[], context: ValueContext): boolean {
  return firstRejection(value, validators, context) === undefined;
}

/** The name of the first validator that rejects the value (cheapest first), or undefined when all accept it. */
export function firstRejection(value: string, validators: ValidatorSpec[], context: ValueContext): string | undefined {
  const reject = (validator: ValidatorSpec) => (typeof validator === 'string' ? validator : Object.keys(validator)[0]!);
  for (const validator of validators) {
    if (typeof validator === 'string') {
      switch (validator) {
        case 'not-placeholder':
          if (isPlaceholder(value) || isProse(value)) return reject(validator);
          break;
        case 'not-reference':
          if (isReference(value)) return reject(validator);
          break;
        case 'not-code-or-word':
          // A quoted absolute path (`PWD: '/Users/me'`) is a directory, whatever the key says.
          if (ABSOLUTE_PATH.test(value.trim())) return reject(validator);
          if (context.bare && isCodeOrWord(value)) return reject(validator);
          if (context.envStyle && isPathOrUrl(value)) return reject(validator);
          break;
        case 'generated-words':
          if (!isGeneratedWords(value)) return reject(validator);
          break;
        case 'not-base64-text': {
          const decoded = decodeBase64(value, true);
          if (decoded !== undefined && PRINTABLE_ASCII.test(decoded)) return reject(validator);
          break;
        }
        case 'base64-decoded-not-placeholder': {
          const decoded = decodeBase64(value, true);
          // Bytes, not text: a random key or keystore is stored so (a Secret's `data:` is base64 of
          // anything). A generated value shows it; a word that happens to be base64's shape (`test`,
          // `IfNotPresent` on another document's line) does not.
          if (decoded === undefined && isGeneratedBase64(value)) break;
          if (decoded === undefined || decoded.trim() === '' || isPlaceholder(decoded) || isReference(decoded)) {
            return reject(validator);
          }
          break;
        }
      }
    } else if ('entropy' in validator) {
      if (shannonEntropy(value) < validator.entropy) return reject(validator);
    } else if ('min-length' in validator) {
      if (value.length < validator['min-length']) return reject(validator);
    } else if ('char-classes' in validator) {
      if (charClasses(value) < validator['char-classes']) return reject(validator);
    } else {
      const decoded = decodeBase64(value, false);
      if (decoded === undefined || !validator['base64-decoded-contains'].some((s) => decoded.includes(s)))
        return reject(validator);
      // A PEM's armor with no key inside (`-----BEGIN PRIVATE KEY-----\n-----END …`, a header cut by `...`).
      if (isPemWithoutKey(decoded)) return reject(validator);
    }
  }
  return undefined;
}

/**
 * Fewer base64 characters than any private key takes (`REDACTED`, `MIIEvQIBADANBg...`, `(snip)`): a doc's
 * stand-in for the body. The smallest key, an Ed25519 seed, is 32 bytes (43 characters) behind its ASN.1
 * header; what 31 characters can hold is that header and a few bytes, not a key.
 */
export function tooShortForAKey(inside: string): boolean {
  let n = 0;
  for (let i = 0; i < inside.length && n < MIN_KEY_BODY; i++) {
    const c = inside.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47) n++;
  }
  return n < MIN_KEY_BODY;
}
const MIN_KEY_BODY = 32;

const PEM_ARMOR_LINE = /-----BEGIN [A-Z0-9 ]{1,60}-----/;
const PEM_END_LINE = /-----END [A-Z0-9 ]{1,60}-----/;
const PEM_ARMOR_LINES = /-----(?:BEGIN|END) [A-Z0-9 ]{1,60}-----/g;

/**
 * A whole PEM block with no key inside (`-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----`). Its END
 * line must be there: base64 wrapped over lines decodes, line by line, to a header and a few characters.
 */
export function isPemWithoutKey(text: string): boolean {
  return PEM_ARMOR_LINE.test(text) && PEM_END_LINE.test(text) && tooShortForAKey(text.replace(PEM_ARMOR_LINES, ''));
}
