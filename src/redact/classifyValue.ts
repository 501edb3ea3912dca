// Decides what a candidate value is before it is masked (issue 26): a literal
// credential, or a reference to one, an encrypted value, a placeholder, a
// public identifier, the name of a secret kept elsewhere, or documentation.
// Only literals are masked. Each verdict carries its evidence, in words, so
// the audit can say why a value was kept; the evidence names the class and
// the test that decided it, never the value.
//
// A keyword-style rule (a key that names a secret, then a value) runs the
// classifier on every value its validators accept (scanRules.ts): the rule
// says where a value is, the classifier says what it is. The judgements shared
// with the validators (isPlaceholder, isReference) live in validators.ts.

import { isTranslationCatalogue, isUiString } from './translationCatalogue.ts';
import { isPemWithoutKey, isPlaceholder, isProse, isReference, shannonEntropy, unleet } from './validators.ts';
import { WORDS } from './wordLists.ts';

export type ValueKind = 'literal' | 'reference' | 'placeholder' | 'public' | 'secret-name' | 'documentation';

export interface ValueVerdict {
  kind: ValueKind;
  /** Why, in words a reader of the audit understands: the class and the test, never the value. */
  evidence: string;
}

const verdict = (kind: ValueKind, evidence: string): ValueVerdict => ({ kind, evidence });

/**
 * References in the syntaxes validators.ts does not read as whole values: Compose's escaped `$$(…)` and
 * `$${…}`, a scheme naming where a secret is kept (`secret:ns/name#field`, `pullsecret:ns/name`,
 * `ext:/scripts/auth.sh`), and a Vault or secret-manager path (`database/creds/orders-rw`,
 * `projects/123/secrets/oauth/versions/latest`, `prod/api/stripe`): lower-case segments, as a path is
 * written, where a random value mixes cases.
 */
const ESCAPED_EXPANSION = /^\$\$[({][^\n]*[)}]$/;
const SCHEME_REFERENCE = /^[a-z][a-z0-9+-]{1,20}:(?!\/\/)[a-z0-9._#:@/-]*\/[a-z0-9._#:@/-]*$/;
const SECRET_PATH = /^(?:[a-z0-9.][a-z0-9_.-]*\/)+[a-z0-9.][a-z0-9_.:-]*$/;

/** Tokens made to be published: Mapbox `pk.` browser tokens, Stripe-style `pk_live_`, PostHog's `phc_` project key (a web page's snippet carries it), SSH and age public keys, certificates. */
const PUBLIC_VALUE =
  /^(?:pk\.eyJ|pk_(?:live|test)_|phc_[A-Za-z0-9]{20,}$|npub1|age1[a-z0-9]{50,}$|ssh-(?:rsa|ed25519|dss) |ecdsa-sha2-|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|PGP PUBLIC|RSA PUBLIC|SSH2 PUBLIC))/;
/** Keys that name public material or an identifier: `publishable_key`, `publicKey`, `key_id`, `kid`, `fingerprint`. */
const PUBLIC_KEY_NAME =
  /(?:publishable|public)[_.-]?(?:api[_.-]?)?(?:key|token)|(?:key|token|secret)[_.-]?id$|^kid$|fingerprint$/i;

/**
 * Keys whose value is the name of a secret object, not its content: Helm's `existingSecret`,
 * `secretName`, `tls.secretRef`, `configFromSecret`, `jksSecret`, `passwordSecret`. The word before
 * `Secret` must not make it a credential itself (`clientSecret`, `webhookSecret`, `jwtSecret`).
 */
const SECRET_OBJECT_KEY =
  /(?:^|[._-]|[a-z0-9])(?:existing[_.-]?secrets?|secret[_.-]?(?:name|ref|key[_.-]?ref|resource)|from[_.-]?secret|secrets?)$/i;
const CREDENTIAL_SECRET_KEY =
  /(?:client|app|consumer|webhook|shared|jwt|session|signing|api|cookie|otp|totp|hmac|master|oauth|encryption|django|rails|aws|access|private|cluster|account|bot|hook|token|flask|app[_.-]?key)[_.-]?secrets?$/i;
/** A Kubernetes object name (DNS-1123) made of words and numbers, as people name things: `pg-credentials`, `argocd-redis`. */
const OBJECT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,251}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
// Numeronyms are words too (`n8n`, `k8s`, `i18n`): a letter, a count, a letter or two.
const NAME_PART = /^(?:[a-z]+|\d+|[a-z]+\d{1,3}|v\d+|[a-z]\d{1,2}[a-z]{1,2})$/;
/** Docs write an object's name with an acronym in capitals (`custom-CA`, `more-custom-CAs`): the same name, lower-cased by the API. */
const CAPITAL_NAME = /^[a-z0-9]+(?:-(?:[a-z0-9]+|[A-Z]{2,5}s?))+$/;

/** A secret's name and the field in it (`helm-chart-signing-key:private_key`, a CI secret store's `name:key`): where the value is kept. */
const SECRET_AND_FIELD = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+:[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)*$/;

/** A file path (`/ca_secrets/file_ca.cert`, `/opt/bitnami/etcd/certs/token/%s`): where the value is kept; two segments at least, lower case (base64 also holds `/`, with capitals). */
const FILE_PATH = /^(?:~|\.{1,2})?\/[a-z0-9_.%-]+(?:\/[a-z0-9_.%-]+)+\/?$/;
/** A tool's `@file` argument (`credentials=@alice-credentials.json`, curl's `-d @body.json`): the value is read from the file. */
const AT_FILE = /^@(?:\.{0,2}\/)?[\w-]+(?:\/[\w.-]+)*\.[a-z][a-z0-9]{1,4}$/;
/** A command that reads the value from a file (`cat /opt/app/secrets/key`, `base64 -d ./token`): computed when it runs. */
const READS_A_FILE = /^(?:cat|head|tail|base64|openssl|gpg|jq|yq|sops)\s+(?:-{1,2}\S+\s+)*[~./$@]/;

/** A key=value pair whose key names a setting or an identity (`path=/v1/aws/creds/readonly`, `id=vault2`): a log or command's field, not the secret. */
const SETTING_PAIR = /^([a-z][a-z0-9_]*)=\S+$/;

/**
 * Keys that name a setting beside a secret, not the secret: a Kubernetes Secret's `stringData` holds a
 * whole configuration (`driver: pgx`, `scheme: http`, `timeout: 10s`, `api_version: v2`, `cert_path: /…`),
 * a kubeconfig among them (`kind: Config`, `current-context: my-cluster`).
 */
/** A session's id (`session_id`, `sess-id`): the id is the session's credential, whoever holds it is logged in. */
const SESSION_ID_KEY = /sess(?:ion)?[_.-]?id$/i;

/**
 * A secret's word joined by colons to the segment before it, with no blank (`urn:k8s:secret:`, `vault:secret:`):
 * the segments of one name, as URNs and secret stores' references write them; a key and its value have a
 * key before them that ends with a blank, a quote, a bracket or the line's start. Only the word itself, not
 * any field: a pgpass line's `host:port:db:user:` leads to the password.
 */
const JOINED_SEGMENT = /[A-Za-z0-9_.-]:(?:secrets?|passwords?|tokens?|keys?|credentials?):$/i;

const SETTING_KEY =
  /(?:^|[_.-])(?:scheme|timeout|driver|version|path|file|dir|directory|mode|level|type|format|protocol|ttl|interval|method|algorithm|id|name|role|policies|policy|context)$|^(?:scheme|timeout|driver|path|mode|level|type|format|protocol|ttl|interval|method|algorithm|id|name|role|kind)$/i;

/** A command-line option where a value was expected (`-e webapp_version=xxx`, `-dev-listen-address=0.0.0.0:8200`, openssl's empty `-passout pass: -out`): the next flag, not a password. */
const OPTION = /^-{1,2}[a-z][a-z-]*(?:=\S*|[ \t]+\S.*)$/;
/** The option alone (openssl's empty `-passout pass: -out file`), unless a call's `(` follows (`-log(freq)`). */
const OPTION_ALONE = /^-{1,2}[a-z][a-z-]{1,30}$/;

/** A duration (`24h`, `10s`, `500ms`, `1 hour`): a setting's value. */
const DURATION = /^\d{1,6}(?:ms|s|m|h|d|w|[ \t]?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?))$/;

/** A type's name (`ConfigMap`, `ServiceAccount`) passed as an argument, where no key names a secret: two to four capitalised words. */
const TYPE_NAME = /^[A-Z][a-z]{2,}(?:[A-Z][a-z]{2,}){1,3}$/;

/** Cookie values that clear a cookie, and GitHub's permission levels: words with a meaning, not values. */
const MEANINGFUL_WORD = /^(?:deleted?|(?:delete|remove)[ _-]?me|expired|invalid|read|write|none|read-all|write-all)$/i;

/** A port mapping whose ports are variables (`-p $(PORT):8888`, `-p ${HOST_PORT}:80/tcp`): not a password after `-p`. */
const PORT_MAPPING = /^(?:\$[({]?\w+[)}]?|\d{1,5})(?::(?:\$[({]?\w+[)}]?|\d{1,5})){1,2}(?:\/(?:tcp|udp|sctp))?$/;

/** A URL without credentials, query or token-like path: a location (`proxy_pass  http://backend:8000;`); or a scheme alone, what is left of a URL before an earlier mask. */
const PLAIN_URL_OR_SCHEME = /^[a-z][a-z0-9+.-]{1,20}:\/\/$/;
const PLAIN_URL = /^[a-z][a-z0-9+.-]{1,20}:\/\/[a-z0-9.-]+(?::\d{1,5})?(?:\/[a-z0-9_.-]{0,40})*\/?;?$/;

/**
 * Keys that name who or where, not a secret: a Kubernetes Secret's `username`, `apiAddress`,
 * `azurestorageaccountname`, `node.session.auth.username_in` sit beside its password and are masked by
 * rules that take every key of `data:`; a cluster's scope too (`namespaces: "a,b"`, `project: team-a` in
 * Argo CD's cluster Secrets).
 */
const IDENTITY_KEY =
  /(?:user(?:name)?|account[_.-]?name|e-?mail|host(?:name)?|address|url|endpoint|region|port|namespaces?|project)(?:[_.-]?in)?$/i;
/** A database's, schema's or bucket's name (`POSTGRES_DB`, `MYSQL_DATABASE`), unless the key names a secret too (`PASSWORD_DB`). */
const DATABASE_KEY = /(?:^|[_.-])(?:db|database|schema|bucket)$/i;

const IN_URL_AUTHORITY = /\/\/[^\s/"'`]*$/;

const BASE64 = /^[A-Za-z0-9+/]{4,}={0,2}$/;
const UNPADDED_BASE64 = /^[A-Za-z0-9_-]{4,}$/;
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * A key counted (`user1`, `host_2`, a Secret's `data:` listing several users) or written in camel case
 * (`teamId`, `clusterName`), as the key tests read `user`, `team_id`. A key with a secret's word in it
 * (`sessionId`, `password2`, `tokenName`) stays as written: its value may be the secret.
 */
function plainKey(key: string): string {
  if (SECRET_FIELD.test(key)) return key;
  return key.replace(/[_.-]?\d{1,3}$/, '').replace(/([a-z])([A-Z])/g, '$1_$2');
}

/** The key as written before the value in a match (`existingSecret: "`): its last name, without quotes and separators. */
export function keyName(keyText: string): string {
  // Read back from the end (a regex anchored at `$` would try every start): quotes and blanks, the
  // separator (`:`, `=`, `=>`, `:=`), quotes, blanks and a closing bracket, then the name itself.
  let end = keyText.length;
  const skip = (chars: string) => {
    while (end > 0 && chars.includes(keyText[end - 1]!)) end--;
  };
  skip(' \t"\'`');
  skip(':=>');
  skip(' \t"\'`]');
  let start = end;
  while (start > 0 && isNameCode(keyText.charCodeAt(start - 1))) start--;
  return keyText.slice(start, end);
}

/** `A-Z a-z 0-9 _ . -`: the characters of a key's name. */
function isNameCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

/**
 * An API object's field that names an entry of a secret, camel-cased as Kubernetes APIs write them (External
 * Secrets' `secretKey` / `remoteKey`, `sourceKey`, `targetKey`): a name such as `db-host` or `team/api-token`.
 * Snake or upper case (`secret_key`, Django's `SECRET_KEY`) is an application's own secret, not such a field.
 */
const ENTRY_KEY = /^(?:secret|remote|source|target)Key$/;

/** An entry's name or path of names (`best-pokemon`, `source-key1`, `prod/db/credentials`, `tls.key`). */
function isEntryName(v: string): boolean {
  return v.split('/').every((part) => part.length > 0 && isObjectName(part.replaceAll('_', '-')));
}

function isObjectName(v: string): boolean {
  const name = CAPITAL_NAME.test(v) ? v.toLowerCase() : v;
  return OBJECT_NAME.test(name) && name.split(/[-.]/).every((part) => NAME_PART.test(part));
}

/** Every letter and digit the same one or two characters: `cccccccc-cccc-…`, the nil UUID, `xx-xx`. */
function isFilledShape(v: string): boolean {
  if (v.length < 8) return false;
  // Distinct letters and digits, case folded, stopping at the third: one pass, no set built.
  let a = -1;
  let b = -1;
  for (let i = 0; i < v.length; i++) {
    let c = v.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 122)) || c === a || c === b) continue;
    if (a === -1) a = c;
    else if (b === -1) b = c;
    else return false;
  }
  return true;
}

/**
 * The value is the name of the product the item configures, as its path spells it, with up to four digits
 * after it, or with a word or key prefix around it: `MYSQL_PASSWORD=nextcloud` in
 * `nextcloud-postgres/compose.yaml`, `storageos` in `volumes/storageos/secret.yaml`, `argocd` under
 * `charts/argo-cd/`, `somewordpress` under `wordpress-mysql/`, `tryportainer` in `portainer/README.md`,
 * `shopware` in `docs/shopware-on-docker.md`. The policy's documented default credentials (an image's
 * own name), found from the item instead of a list. A document's own name counts (a page is named
 * after what it documents); a data file's does not (`secret.yaml` says what the file is).
 */
function namesTheProduct(v: string, path: string | undefined): boolean {
  if (path === undefined) return false;
  const word = v
    .toLowerCase()
    .replace(/^(?:sk|pk|rk)[-_]/, '')
    .replace(/\d{1,4}[!?.#]*$/, '');
  if (word.length < 4 || !/^[a-z][a-z_-]*$/.test(word)) return false;
  const segments = path.toLowerCase().split('/');
  const file = segments.pop()!;
  if (/\.(?:md|markdown|rst|txt|adoc|html?)$/.test(file)) segments.push(file.replace(/\.[a-z]+$/, ''));
  const bare = word.replace(/[-_]/g, '');
  return segments.some(
    (segment) =>
      segment.replace(/[-_.]/g, '') === bare ||
      segment.split(/[-_.]/).some((part) => part === word || (part.length >= 5 && bare.includes(part))),
  );
}

/** The product's name joined to made-up words or a counter (`joomla@secured` in `joomla/README.md`, `nextcloud-secret`, `Skopeo@1` under `skopeo-copy/`): still the documented default. */
/**
 * The product's name, as a part of the item's path spells it, run together with a placeholder word before or
 * after it (`n8npassword` under `charts/n8n/`, `secretgitea` under `gitea/`): a demo's default.
 */
function productRunTogether(v: string, path: string | undefined): boolean {
  if (path === undefined || v.length > 40 || !/^[A-Za-z0-9]+$/.test(v)) return false;
  const lower = v.toLowerCase();
  const isFiller = (word: string) =>
    WORDS.placeholder.has(word) || WORDS.madeUpParts.has(word) || WORDS.runTogether.has(word);
  for (const part of path.toLowerCase().split(/[/._-]/)) {
    if (part.length < 3 || part.length >= lower.length || !/[a-z]/.test(part)) continue;
    if (lower.startsWith(part) && isFiller(lower.slice(part.length))) return true;
    if (lower.endsWith(part) && isFiller(lower.slice(0, lower.length - part.length))) return true;
  }
  return false;
}

/**
 * Typed with a few keys (`dfgdfgdzfgdgdfgdfg`, `asbdhaaskmdlkamdklasmdlkams`): letters only, twelve or more, with
 * at most a third as many different letters as the value is long. Random letters of that length repeat far
 * less (twenty random lower-case letters hold about fourteen different ones).
 */
function isFewKeys(v: string): boolean {
  if (v.length < 12 || v.length > 64 || !/^[A-Za-z]+$/.test(v)) return false;
  return new Set(v.toLowerCase()).size * 3 <= v.length;
}

/** A label set off by the same run of marks on both sides (`!!!invalid-base64!!!`, `***not set***`): two words or more inside, in one case. */
const WRAPPED_LABEL = /^(([!*#~=<>^+-])\2+)(?:[a-z][a-z0-9]*(?:[ _-][a-z0-9]+)+|[A-Z][A-Z0-9]*(?:[ _-][A-Z0-9]+)+)\1$/;
const isWrappedLabel = (v: string) => v.length <= 60 && WRAPPED_LABEL.test(v);

function productAndWords(v: string, path: string | undefined): boolean {
  if (path === undefined || v.length > 40 || !/^[A-Za-z0-9]+(?:[-_.@][A-Za-z0-9]+)+$/.test(v)) return false;
  let product = false;
  for (const part of v.toLowerCase().split(/[-_.@]/)) {
    if (WORDS.madeUpParts.has(part) || WORDS.compoundParts.has(part) || WORDS.placeholder.has(part)) continue;
    // A counter after the name (`Skopeo@1`, `gitea-01`): still the product's default.
    if (COUNTER.test(part)) continue;
    if (!namesTheProduct(part, path)) return false;
    product = true;
  }
  return product;
}

/** base64 of printable text that is itself a placeholder or a reference: `dGVzdC1hcGkta2V5Cg==` is `test-api-key`. */
function decodesToPlaceholder(v: string, path: string | undefined): boolean {
  // Padded, or unpadded as cookie secrets and URLs carry it (`c2VjcmV0dGhpcnR5…` without its `=`).
  if (v.length > 200 || v.length % 4 === 1 || !(BASE64.test(v) || UNPADDED_BASE64.test(v))) return false;
  const decoded = Buffer.from(v, 'base64').toString('utf8').trim();
  if (decoded.length === 0 || !PRINTABLE.test(decoded)) return false;
  return (
    isPlaceholder(decoded) ||
    isReference(decoded) ||
    isMadeOfFiller(decoded) ||
    isPemWithoutKey(decoded) ||
    MEANINGFUL_WORD.test(decoded) ||
    PLAIN_URL.test(decoded) ||
    namesTheProduct(decoded, path) ||
    (isObjectName(decoded) && NAMES_WHAT_IT_HOLDS.test(decoded))
  );
}

/** Fields a JWT's header carries: which algorithm and key signed it, never a claim or a signature. */
const JWT_HEADER_FIELDS = new Set(['alg', 'typ', 'kid', 'cty', 'x5t', 'x5u', 'jku', 'crit']);

/**
 * The header part of a JWT alone (`eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9`, a test's stand-in for a token):
 * base64url of a JSON object with header fields only. It says how a token would be signed and is the same
 * in every token of its kind; a whole JWT has two dots and is judged by its own rule.
 */
function isJwtHeaderAlone(v: string): boolean {
  if (v.length > 300 || !/^eyJ[A-Za-z0-9_-]+={0,2}$/.test(v)) return false;
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(v, 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return false;
  const fields = Object.keys(header);
  return fields.length > 0 && fields.every((field) => JWT_HEADER_FIELDS.has(field));
}

/**
 * Template spans: the value sits inside `{{ … }}` (Go, Helm, Jinja, tldr's placeholders), `{{- … -}}`
 * over several lines, `[[ … ]]` (Helm charts that use other delimiters), `{% … %}`, `<% … %>` or
 * `${ … }`: the span is opened before the value and not closed before it, and is closed after it.
 */
const TEMPLATE_DELIMITERS: [string, string][] = [
  ['{{', '}}'],
  ['[[', ']]'],
  ['{%', '%}'],
  ['<%', '%>'],
  ['${', '}'],
];
const QUOTED_BEFORE = /["'`]\s*$/;
const SHELL_FALLBACK = /[:?=]/;
const TEMPLATE_FALLBACK = /\bdefault\b|\bor\b|\|\|/;
function insideTemplate(before: string, valueAndAfter: string): boolean {
  for (const [open, close] of TEMPLATE_DELIMITERS) {
    const opened = before.lastIndexOf(open);
    if (opened === -1 || before.indexOf(close, opened + open.length) !== -1) continue;
    // A literal fallback inside the span (`${DB_PASSWORD:-S3cr3t}`, `{{ .Values.x | default "S3cr3t" }}`) is a value.
    if ((open === '${' ? SHELL_FALLBACK : TEMPLATE_FALLBACK).test(before.slice(opened + open.length))) continue;
    const closed = valueAndAfter.indexOf(close);
    if (closed === -1) continue;
    // Closed before the next line that opens another span, and (for `${`, whose `}` is common) on the same line.
    const newline = valueAndAfter.indexOf('\n');
    if (open === '${' && newline !== -1 && newline < closed) continue;
    const reopened = valueAndAfter.indexOf(open);
    if (reopened === -1 || reopened > closed) return true;
  }
  return false;
}

/**
 * Code, not a value: a call (`-log(freq)`, `App::env('X')`, a doc's `Basic base64(clientId:clientSecret)`) or a
 * member expression (`tokenizer.eos_token`). A name's own digits come last and are few (`base64`, `sha256`).
 */
const CALLEE = /^-?[A-Za-z_$][A-Za-z_$]*\d{0,3}(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)*$/;
/** Each part a word of three letters or more (snake_case, camelCase, up to two digits at its end): `Ab.cd9Qx7k` is a password. */
const MEMBER_EXPRESSION =
  /^(?:[A-Za-z_$][a-z_$]{2,}\d{0,2}|[a-z_$]{2,}(?:[A-Z][a-z]+)+)(?:\.(?:[a-z_$][a-z_$]{2,}\d{0,2}|[a-z_$]{2,}(?:[A-Z][a-z]+)+))+$/;

/** A shell command substitution, escaped in a template or not (`$(cat "$FILE")`, `\$(curl …`, `$(< file)`, `Bearer $(kubectl get secret …)`): the value is computed when the line runs. */
const COMMAND_SUBSTITUTION = /(?:^|[\s:=,])\\?\$\((?:<(?:[ \t]|$)|[a-z][a-z0-9_-]+(?:[ \t]|$))/;

/**
 * A pipeline's variable or parameter in `$(…)` (Tekton's `$(params.token)`, `$(profile-name)`, Azure Pipelines'
 * `$(Build.SourceBranch)`, make's `$(PASSWORD)`), alone, in an INI section's brackets, or several joined by marks,
 * with a YAML comment after it: the runner puts the value in when the task runs. A name, not a command: no space inside.
 */
const PAREN_REFERENCE =
  /^\[?\$\([A-Za-z_][\w.-]*(?:\[['"]?[\w.-]+['"]?\])*\)(?:[^\w\s$]{1,3}\$\([A-Za-z_][\w.-]*\))*\]?(?:[ \t]+#[^\n]*)?$/;

/** A variable expansion that builds the value (nginx's `$backend:3100$request_uri;`, `http://$distributor:4318/v1`); not a crypt hash (`$apr1$salt$…`). */
const VARIABLE_BUILT =
  /^(?:[a-z][a-z0-9+.-]{1,20}:\/\/)?\$[A-Za-z_]\w*(?::\d{1,5})?(?:\$[A-Za-z_]\w*|\/[A-Za-z0-9_.$-]*)*;?$/;

/**
 * A whole template span follows the value (`-token=write-{{ $tenant.name }}`, `/certs/{{ .Values.key }}`):
 * the value is the fixed part of a templated string. The span must open with a name and close on the line,
 * so that a random salt's `{{` or `<%` does not end its literal.
 */
const TEMPLATE_AFTER =
  /^(?:\{\{-?[ \t]*[.$A-Za-z_][^}\n]*\}\}|\[\[-?[ \t]*[.$A-Za-z_][^\]\n]*\]\]|\{%-?[ \t]*[A-Za-z_][^%\n]*%\}|<%[=-]?[ \t]*[A-Za-z_][^%\n]*%>|\$\{[A-Za-z_][\w.:-]*\})/;

/** A key of a key=value pair, not its value (`--from-literal=cassandra-password=PASSWORD`): lower-case words, ending at `=`. */
const KEY_OF_PAIR = /^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+=$/;
/** A key given constants' names as its value (`client-passwords=CLIENT_PASSWORD1,CLIENT_PASSWORD2`): a template for a command. */
const KEY_AND_CONSTANTS = /^[a-z][a-z0-9_.-]*=[A-Z][A-Z0-9_]*(?:,[A-Z][A-Z0-9_]*)*$/;

/** A list of expansions (`--set a.password=$A_PASSWORD,b.password=$B_PASSWORD`): each value comes from a variable. */
const EXPANSION_LIST = /^\$[A-Za-z_]\w*(?:,[\w.-]+=\$[A-Za-z_]\w*)+$/;

/** Constants' names standing for values (`REPLICA_SET_KEY`, `CLIENT_PASSWORD1,CLIENT_PASSWORD2`, a JWT's `HEADER.PAYLOAD.SIGNATURE`, a connection line's `HOST:PORT:DATABASE:PASSWORD`): words of capitals joined by `_`, `.` or `:`, each with a vowel. */
const CONSTANT_NAMES =
  /^(?:[A-Z]*[AEIOU][A-Z]*\d{0,2}[_.:])+[A-Z]*[AEIOU][A-Z]*\d{0,2}(?:,(?:[A-Z]*[AEIOU][A-Z]*\d{0,2}[_.:])+[A-Z]*[AEIOU][A-Z]*\d{0,2})*$/;

/**
 * A constant's or a variable's name with acronyms among its words (`pass = "R_SPF_ALLOW"`, an rspamd symbol;
 * `secretKey: MY_ENV_VAR1`, `DB_TLS_CA`): capitals joined by `_`, each part a word with a vowel or an acronym of
 * up to four letters, one part a word of three letters or more with a vowel, up to two digits at a part's end.
 * A generated value in capitals puts digits inside its parts or runs more than four consonants together.
 */
const CONSTANT_SHAPE = /^[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)+$/;
const CONSTANT_PART = /^(?:[A-Z]*[AEIOU][A-Z]*|[A-Z]{1,4})\d{0,2}$/;
const CONSTANT_WORD = /^[A-Z]*[AEIOU][A-Z]*$/;
function isConstantWithAcronyms(v: string): boolean {
  if (v.length > 64 || !CONSTANT_SHAPE.test(v)) return false;
  const parts = v.split('_');
  return (
    parts.every((part) => CONSTANT_PART.test(part)) &&
    parts.some((part) => {
      const word = part.replace(/\d+$/, '');
      return word.length >= 3 && CONSTANT_WORD.test(word);
    })
  );
}

/**
 * Kubernetes' built-in identities are written `system:<name>` (`--user=system:kube-scheduler`,
 * `system:node:worker-0`, `system:serviceaccount:ns:name`): after `system:`, lower-case names joined by `-`
 * and `:` are the rest of the name, where a tool's `-u user:password` would hold a password.
 */
const KUBERNETES_SYSTEM_USER_BEFORE = /(?:^|[\s=:"'])system:$/;
const KUBERNETES_SYSTEM_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?::[a-z0-9][a-z0-9.-]*){0,3}$/;

/** An Azure Resource Manager template expression (`[parameters('token')]`, `[steps('details').token]`): the value is a parameter's. */
const ARM_EXPRESSION = /^\[[a-z][A-Za-z]*\([^\n]*\)[\w.'()[\]-]*\]$/;

/** A regular expression literal (`/.+/i`, `/a.+/`) that a test matches the value against: it has a pattern's characters, not base64's. */
const REGEX_LITERAL = /^\/(?=[^/\n]*[.*?|^$[\](){}\\])(?:[^/\n\\]|\\.)+\/[dgimsuy]*$/;

/** The "key" is the last segment of an absolute path (`-v /etc/passwd:/etc/passwd:ro`, `GET /etc/password HTTP/1.1`): a file, not a setting; not a URL's `//user:`, not a Windows option's `/p:`. */
const KEY_IS_A_PATH = /(?<![:/\w])\/[\w.-]+\/[\w.-]*[A-Za-z][\w.-]*(?::|[ \t]+)$/;

/** A numeric user and group (`--user 1000:1000`): ids, not a password. */
const NUMERIC_ID_PAIR_BEFORE = /(?:^|[\s=])\d{1,6}:$/;

/** A subscript, `.`, `,`, `)`, `;` or `}` right after an unquoted identifier: the value is code (`content_b64["elk_pass"]`, `token: base64Token,`). */
const CODE_AFTER = /^(?:\[["'\w]|[,;)}])/;
/**
 * A source file of a language whose strings are quoted: there an unquoted value after `=` or `:=` at a line's
 * end is a variable (`config.PrivateKey = keyRSA2048`), where a shell or dotenv file would hold a literal.
 */
const QUOTING_SOURCE =
  /\.(?:go|java|kt|kts|scala|cs|rs|swift|c|cc|cpp|h|hpp|js|mjs|cjs|jsx|ts|mts|cts|tsx|py|rb|dart)$/;
const CODE_ASSIGNMENT_BEFORE = /(?:^|[\s(])[A-Za-z_][\w.]*[ \t]*:?=[ \t]*$/;
const LINE_END_AFTER = /^[ \t]*(?:\r?\n|$|\/\/|#)/;
function isIdentifierAtLineEnd(c: { path: string | undefined; keyText: string; after: string }): boolean {
  return (
    c.path !== undefined &&
    QUOTING_SOURCE.test(c.path) &&
    LINE_END_AFTER.test(c.after) &&
    CODE_ASSIGNMENT_BEFORE.test(c.keyText.slice(c.keyText.lastIndexOf('\n') + 1))
  );
}
/** Go's type assertion (`rsaPrivKey := privKey.(*rsa.PrivateKey)`): a variable and the type it is asserted to be. */
const TYPE_ASSERTION = /^[A-Za-z_]\w*\.$/;
const ASSERTED_TYPE_AFTER = /^\(\*?[A-Za-z_][\w.]*\)/;

/** An identifier in code: snake_case or camelCase words of two letters or more, with up to three digits each. */
const CODE_IDENTIFIER = /^[a-z][a-z]+\d{0,3}(?:_[a-z0-9]{2,}|[A-Z][a-z]{2,}\d{0,3}){1,3}$/;

/**
 * A longer identifier in code (`Secret: testBASE32TOTPSecret,`, `IssuerPrivateKey: x509PrivateKeyRSA2048,`): parts
 * where the case or a number changes, every part after the first a word of three letters or more, an
 * acronym or a number. A random value splits into parts of one or two characters (`aB3xK9`).
 */
function isLongCodeIdentifier(v: string): boolean {
  if (v.length < 8 || v.length > 60 || !/^[A-Za-z][A-Za-z0-9]+$/.test(v)) return false;
  const parts = v.match(IDENTIFIER_PART);
  if (parts === null || parts.length < 3 || parts.length > 7 || parts.join('') !== v) return false;
  // Two capitals are no acronym here: a random value has them as often (`VgcyTlbDCArbXO`).
  return parts.slice(1).every((part) => part.length >= 3 || /^\d+$/.test(part));
}
/** Capitals before a capitalised word or a number (`TOTP` in `TOTPSecret`), a capitalised or lower-case word, a number. */
const IDENTIFIER_PART = /[A-Z]{2,}(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|[A-Z]|\d+/g;

/** Placeholder words and counting digits run together (`test123TEST`): a demo's value. */
function isWordsAndCounts(value: string): boolean {
  // Marks typed after the count (`testTEST1234+-*/`) are part of the same filler.
  const v = value.replace(TRAILING_MARKS, '');
  if (v.length > 40 || !COUNTING_DIGITS.test(v)) return false;
  const parts = v.match(WORD_OR_COUNT);
  if (parts === null || parts.length < 3 || parts.join('') !== v) return false;
  return parts.every((part) =>
    /^\d/.test(part) ? /^(?:1|12|123|1234|12345)$/.test(part) : isPlaceholderWord(part.toLowerCase()),
  );
}
const COUNTING_DIGITS = /[A-Za-z]1(?:2(?:3(?:45?)?)?)?(?:[A-Za-z]|$)/;
const TRAILING_MARKS = /[^A-Za-z0-9]+$/;
/** Words split where their case changes (`testTEST` is `test` and `TEST`), and runs of digits. */
const WORD_OR_COUNT = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g;
const isPlaceholderWord = (word: string) =>
  WORDS.placeholder.has(word) || WORDS.compoundParts.has(word) || WORDS.madeUpParts.has(word);

/** A colon then a lower-case word (`--secret :empty`, `password: :random`): a tool's or Ruby's symbol. */
const SYMBOL = /^:[a-z][a-z_]{2,20}$/;

/** A PEM block's armor line (`-----BEGIN RSA PRIVATE KEY-----`) read as a block scalar's first word: a label, not the key. */
const PEM_ARMOR = /^-----BEGIN [A-Z0-9 ]{1,60}-----/;

/** A Unix socket's address (`fastcgi_pass unix:/var/run/php-fpm/app.sock;`). */
const UNIX_SOCKET = /^unix:\/[\w./-]+;?$/;

/** Digests published on purpose: a Vault audit log's `hmac-sha256:…` of a token. */
const HMAC_DIGEST = /^hmac-sha(?:1|256|384|512):[0-9a-f]{40,}$/;

/** Shell code rather than a value: a pipeline (` key.txt | awk `), a regular expression's escaped group or back-reference (`\([^"]*\)`, `\1`). */
const PIPELINE = /^\s*[\w./-]+(?:\s+[\w./-]+)*\s+\|\s+[a-z]/;
const REGEX_ESCAPES = /\\[()]|\\[1-9]/;

/** Runs of one character that fill the value (`AAAAABBBBBCCCCCDDDDD`, `aaaabbbb-cccc-dddd-eeee-ffffgggghhhh`): typed to fill a field. */
function isRunsOfCharacters(v: string): boolean {
  if (v.length < 12) return false;
  let runs = 0;
  let run = 0;
  let previous = -1;
  for (let i = 0; i <= v.length; i++) {
    let c = i < v.length ? v.charCodeAt(i) : -2;
    if (c >= 65 && c <= 90) c += 32;
    if (c === 45 || c === 95) continue;
    if (c === previous) {
      run++;
      continue;
    }
    if (previous !== -1 && run < 3) return false;
    runs++;
    run = 1;
    previous = c;
  }
  return runs >= 3;
}

/** Placeholder syntaxes of command-line tools: hydra's `^PASS^`, batch's `%PASS%`. */
const WRAPPED_PLACEHOLDER = /^([\^%])[A-Za-z_][A-Za-z0-9_]*\1$/;

/** A constant's name, as tools write their placeholders (`FILE0`, `COMBO00:COMBO01`, `PASS`): capitals and up to two digits. */
const CONSTANT_NAME = /^[A-Z]{3,7}\d{0,2}(?::[A-Z]{3,7}\d{0,2})?$/;

/** Prose after the value says what it is: `… 3f2a9c81… is a commit id`. */
const SAID_TO_BE_AN_ID =
  /^[`'"]?[.,;:]?[ \t]+(?:is|was)[ \t]+(?:a|an|the)[ \t]+(?:git[ \t]+)?(?:commit|sha|hash|digest|checksum|uuid|build|request|trace)\b/i;

/** A key prefix followed by a plain word: `sk-mock`, `sk-laradock`, where a real key is long and random. */
const PREFIX_AND_WORD = /^(?:sk|pk|rk|key|token)[-_][a-z]{2,14}$/;
/** A short key prefix and a placeholder word (`tkey_foo`, `ak-dummy`): where a real key is long and random. */
const PREFIX_AND_PLACEHOLDER = /^[a-z]{1,5}[-_]([a-z]{3,8})$/;

/** Words in a script other than Latin (`임베딩을`, `пароль`): prose in another language, not a value. */
const NON_LATIN_WORD = /^[^\x00-\x7f]+$/;

/** A word written twice (`k8smasterk8smaster`): made up to fill a field. */
function isRepeatedWord(v: string): boolean {
  if (v.length < 6) return false;
  // The same word between separators, three times or more (`apple-apple-apple-apple`).
  const parts = v.split(/[-_.: ]/);
  if (parts.length >= 3 && parts[0]!.length >= 2 && parts.every((part) => part === parts[0])) return true;
  if (v.length % 2 !== 0) return false;
  const half = v.length / 2;
  return v.slice(0, half) === v.slice(half);
}

/**
 * The value repeats its own line (`mc alias set local http://minio:9000 laradock laradock`, a password
 * equal to the user name) or the words of its key (`master key … Bearer masterkey`): a value that names
 * itself, not a generated one.
 */
function echoesItsLine(v: string, before: string): boolean {
  if (v.length < 4 || v.length > 40 || !/^[A-Za-z0-9_.-]+$/.test(v)) return false;
  const line = before.slice(before.lastIndexOf('\n') + 1);
  // The value as a whole word of the line (found with indexOf: no regex built per value).
  for (let at = line.indexOf(v); at !== -1; at = line.indexOf(v, at + 1)) {
    const end = at + v.length;
    if ((at === 0 || !isAlnum(line.charCodeAt(at - 1))) && (end === line.length || !isAlnum(line.charCodeAt(end))))
      return true;
  }
  return (
    /^[a-z]+$/i.test(v) &&
    line
      .toLowerCase()
      .replace(/[^a-z]/g, '')
      .includes(v.toLowerCase())
  );
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function charClassCount(v: string): number {
  return [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(v)).length;
}

/** Digits counting up or down, maybe in groups (`12345`, `87654321-4321-210987654321`): typed to fill a field. */
function isDigitCount(v: string): boolean {
  if (!/^\d+(?:[-_ .]\d+)*$/.test(v)) return false;
  let pairs = 0;
  let steps = 0;
  let digits = 0;
  for (const group of v.split(/[-_ .]/)) {
    digits += group.length;
    for (let i = 1; i < group.length; i++) {
      pairs++;
      const d = group.charCodeAt(i) - group.charCodeAt(i - 1);
      if (d === 1 || d === -1 || d === 9 || d === -9) steps++;
    }
  }
  return digits >= 5 && steps >= 0.8 * pairs;
}

/** A word, then `1`, `12`, `123` or `1234` and marks, or nothing. */
const COUNTING_TAIL = /^[A-Za-z]+(?:1|12|123|1234)?[!?.#]*$/;

/** The value names its own key (`CONSOLE_SECRET_KEY: console123`, `accountkey: base64encodedaccountkey`): written to show where a value goes. */
function namesItsKey(v: string, key: string): boolean {
  const letters = v.toLowerCase().replace(/[^a-z]/g, '');
  if (letters.length < 4) return false;
  // A word of the key with a counting tail (`console123`; `Jenkins2024!` is a chosen password), or the whole key inside a word.
  const keyParts = key
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((part) => part.length >= 4);
  const keyLetters = key.toLowerCase().replace(/[^a-z]/g, '');
  return (
    (COUNTING_TAIL.test(v) && keyParts.includes(letters)) ||
    (/^[a-z\d]+$/.test(v) && keyLetters.length >= 6 && letters.includes(keyLetters))
  );
}

/** A name/value pair's name (`- name: GITHUB-OAUTH_SECRET` then `value: `, JSON's `"name": "X", "value": `): the key the value is for. */
const NAME_OF_PAIR =
  /["']?name["']?[ \t]*:[ \t]*["']?([A-Za-z_][\w.-]*)["']?[ \t]*,?[ \t]*\r?\n?[ \t]*["']?value["']?[ \t]*:[ \t]*["']?$/;

/** The value is the user name written beside it (`MYSQL_USER=petclinic` above `MYSQL_PASSWORD=petclinic`): a demo's pair, not a secret. */
function equalsTheUserName(v: string, before: string): boolean {
  if (v.length < 3 || v.length > 40 || !/^[\w.@-]+$/.test(v)) return false;
  const user = /(?:user(?:name)?|login)["'*_`]*[ \t]*[:=][ \t]*["'*_`]*([\w.@-]+)/gi;
  for (const match of before.matchAll(user)) if (match[1] === v) return true;
  return false;
}

/** Hex spelled from words (`deadbeef`, `bada55cafe`; rules/words.json `hexWords`): a developer's joke, not a random value. */
const HEX_WORDS = WORDS.hexWords;
function isHexWords(v: string): boolean {
  const s = v.toLowerCase();
  if (s.length < 6 || s.length > 32 || !/^[0-9a-f]+$/.test(s)) return false;
  // Split into known words, longest first at each position (short values: a few steps).
  const ends = new Uint8Array(s.length + 1);
  ends[0] = 1;
  for (let i = 0; i < s.length; i++) {
    if (!ends[i]) continue;
    for (let j = i + 2; j <= Math.min(s.length, i + 6); j++) if (HEX_WORDS.has(s.slice(i, j))) ends[j] = 1;
  }
  return ends[s.length] === 1;
}

/** A phrase written as a slug (`i-am-the-worst`, `vault-agent-test-with-k8s`, `keep_it_private`): words joined by `-` or `_`, one of them a function word (rules/words.json `functionWords`). */
function isPhraseSlug(v: string): boolean {
  const parts = v.split(v.includes('-') ? '-' : '_');
  return (
    parts.length >= 3 &&
    parts.every((part) => /^[a-z]+\d{0,2}[a-z]*$/.test(part) && part.length <= 10) &&
    parts.some((part) => WORDS.functionWords.has(part))
  );
}

/** `pass#pass`, `pass%23pass`, `admin / admin`: one word twice around a mark. */
function isWordTwiceAroundMark(v: string): boolean {
  let text = v;
  try {
    text = decodeURIComponent(v);
  } catch {
    // not %-encoded
  }
  const match = /^([A-Za-z]{3,})[ \t]*[^A-Za-z0-9\s][ \t]*\1$/.exec(text);
  return match !== null;
}

/** Basic credentials that decode to `user:password`, judged by the password: the user's own name, or a placeholder (`test:test`, `user:pass`, `имя:пароль`). */
function decodesToPlaceholderPair(v: string): boolean {
  if (v.length > 200 || v.length % 4 !== 0 || !BASE64.test(v)) return false;
  // `echo user:pass | base64` encodes the line's end too.
  const decoded = Buffer.from(v, 'base64')
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (/[\uFFFD\u0000-\u001F]/.test(decoded)) return false;
  const colon = decoded.indexOf(':');
  if (colon === -1) return false;
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  return password === user || isPlaceholder(password);
}

/** Words a name is made of besides its place's: where it runs and what it is. */
const NAME_FILLERS = new Set(
  'k8s kube kubernetes docker local dev test demo cluster node server app default my'.split(' '),
);

/** The words of a key or a path: split at separators and at camelCase humps, lower-cased. */
function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 2),
  );
}

/**
 * A name spelled from the words of its own key and path (`initialClusterToken: etcd-cluster-k8s` under
 * `bitnami/etcd/`, `hostedGrafanaIdSecretKey: hosted-grafana-id`): lower-case words joined by `-`, each
 * one a word of the key or of the path, or what a name is made of (`k8s`, `local`, `test`).
 */
function spelledFromItsPlace(v: string, key: string, path: string | undefined): boolean {
  if (!/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(v)) return false;
  const place = wordsOf(`${key} ${path ?? ''}`);
  let fromPlace = 0;
  for (const part of v.split('-')) {
    if (place.has(part)) fromPlace++;
    else if (!NAME_FILLERS.has(part)) return false;
  }
  return fromPlace >= 1;
}

/**
 * The value is labelled with its own key (`IDToken: "IDToken.1234…"`, `idToken = "eyJfoobar123.eyJbaz987.IDToken"`,
 * `'softener_salt': 'water_softener_salt'`): the key's words are a whole segment of the value, or its first or
 * last segments. A generated credential never spells the name of the field it fills.
 */
function labelledByItsKey(v: string, key: string, keyText: string): boolean {
  if (v.length > 200) return false;
  // A quoted key of several words (`'water softener salt': '…'`) is read whole.
  const keyWords = (quotedKeyBefore(keyText) ?? key)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  // A short key (`salt`) is trusted only with a value made of lower-case words, as identifiers are written.
  const minimum = IDENTIFIER_WORDS.test(v) ? 3 : 5;
  if (keyWords.join('').replace(/\d/g, '').length < minimum) return false;
  const segments = v.toLowerCase().split(/[._+-]/);
  const keyLetters = keyWords.join('');
  if (segments[0] === keyLetters || segments[segments.length - 1] === keyLetters) return true;
  if (keyWords.length < 2 || segments.length < keyWords.length) return false;
  const head = segments.slice(0, keyWords.length).join('_');
  const tail = segments.slice(segments.length - keyWords.length).join('_');
  return head === keyWords.join('_') || tail === keyWords.join('_');
}

const QUOTED_KEY = /^[A-Za-z][A-Za-z0-9 _.-]{0,60}$/;

/** The quoted key right before the separator (`'water softener salt' => '`), read back from the end: no regex tries every start. */
function quotedKeyBefore(keyText: string): string | undefined {
  let end = keyText.length;
  while (end > 0 && ' \t"\''.includes(keyText[end - 1]!)) end--;
  while (end > 0 && ':=>'.includes(keyText[end - 1]!)) end--;
  while (end > 0 && ' \t'.includes(keyText[end - 1]!)) end--;
  const quote = keyText[end - 1];
  if (quote !== '"' && quote !== "'") return undefined;
  const start = keyText.lastIndexOf(quote, end - 2);
  if (start === -1 || end - start > 64) return undefined;
  const name = keyText.slice(start + 1, end - 1);
  return QUOTED_KEY.test(name) ? name : undefined;
}
const IDENTIFIER_WORDS = /^[a-z]{3,}(?:[_-][a-z]{3,}){1,5}$/;

/** Words that make up a value's description rather than a value (rules/words.json), beside the placeholder and made-up parts. */
const FILLER_WORDS = new Set([
  ...WORDS.placeholder,
  ...WORDS.compoundParts,
  ...WORDS.madeUpParts,
  ...WORDS.functionWords,
  ...WORDS.describing,
]);
/** Every beginning of a filler word: the search below stops as soon as the text read is no word's beginning. */
const FILLER_PREFIXES = new Set([...FILLER_WORDS].flatMap((word) => [...word].map((_, i) => word.slice(0, i + 1))));
const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890'];

/** How long the typed run at `i` is: letters or digits in alphabet or counting order, or neighbouring keys of one row, either way. */
function typedRunAt(s: string, i: number): number {
  let best = 1;
  for (let step = 1; step >= -1; step -= 2) {
    let n = 1;
    while (i + n < s.length) {
      const c = s.charCodeAt(i + n);
      const p = s.charCodeAt(i + n - 1);
      if (c - p === step || (isDigitCode(c) && isDigitCode(p) && c - p === -9 * step)) n++;
      else break;
    }
    if (n > best) best = n;
  }
  const row = ROW_OF[s.charCodeAt(i)];
  if (row !== undefined) {
    const at = row.indexOf(s[i]!);
    for (let step = 1; step >= -1; step -= 2) {
      let n = 1;
      while (i + n < s.length && row[at + n * step] === s[i + n]) n++;
      if (n > best) best = n;
    }
  }
  return best;
}
/** The keyboard row of each lower-case letter and digit, by character code. */
const ROW_OF: (string | undefined)[] = [];
for (const row of KEYBOARD_ROWS) for (const key of row) ROW_OF[key.charCodeAt(0)] = row;

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Made of words that describe a value (`some`, `random`, `string`, `thirty`, `bytes`: rules/words.json
 * `describing`, with the placeholder and made-up parts) and typed runs (`abc`, `xyz`, `1234567890`, `asdf`),
 * with at most two characters left over: `somerandomstring12341234567890AB`, `this_is_a_secret_abc123abc123abc`,
 * `secretthirtytwobytes+abcdefghijk`, `long-and-random-alphanumeric-string`. A generated value leaves most of
 * its characters uncovered; a diceware passphrase's words are not in these lists.
 */
function isMadeOfFiller(value: string): boolean {
  if (value.length < 8 || value.length > 80) return false;
  const s = value.toLowerCase();
  // Fewest characters left uncovered up to each position (a shortest path over at most 80 × 16 steps).
  const cost = new Float64Array(s.length + 1).fill(Number.POSITIVE_INFINITY);
  const longWord = new Uint8Array(s.length + 1);
  cost[0] = 0;
  for (let i = 0; i < s.length; i++) {
    const here = cost[i]!;
    if (here === Number.POSITIVE_INFINITY) continue;
    relax(cost, longWord, i, i + 1, here + (FREE_MARKS.includes(s[i]!) ? 0 : 1), false);
    for (let j = i + 1; j <= Math.min(s.length, i + 16); j++) {
      const piece = s.slice(i, j);
      if (!FILLER_PREFIXES.has(piece)) break;
      if (j - i >= 2 && FILLER_WORDS.has(piece)) relax(cost, longWord, i, j, here, j - i >= 4);
    }
    const run = typedRunAt(s, i);
    for (let n = 3; n <= run; n++) relax(cost, longWord, i, i + n, here, false);
  }
  if (cost[s.length]! <= 2 && longWord[s.length] === 1) return true;
  // Nothing but typed runs and filler, one run of four keys at least (`zyxwtuv987`, `abcxyz123456`), typed in
  // one case: a row whose case was changed on purpose (`QwErTyUiOp`) is somebody's chosen password.
  const oneCase = value === s || value === value.toUpperCase();
  if (oneCase && cost[s.length] === 0 && typedRuns(s) >= 1) return true;
  // Keys typed along a row twice or more (`WYasdfJp4sdfasdf1234`): a typist's filler with a few keys between.
  return cost[s.length]! <= Math.min(5, s.length / 4) && typedRuns(s) >= 2;
}

/** Marks that separate a filler's parts and cost nothing. */
const FREE_MARKS = '-_.+ /';

/** Reaching `j` from `i` for `c` uncovered characters: kept when fewer, or as few with a word of four letters on the way. */
function relax(cost: Float64Array, longWord: Uint8Array, i: number, j: number, c: number, word: boolean): void {
  if (c < cost[j]! || (c === cost[j] && word && longWord[j] === 0)) {
    cost[j] = c;
    longWord[j] = longWord[i]! === 1 || word ? 1 : 0;
  }
}

/** How many typed runs of four or more (`asdf`, `1234`, `sdfasdf` counts once per run) the value holds. */
function typedRuns(s: string): number {
  let runs = 0;
  for (let i = 0; i < s.length; ) {
    const n = typedRunAt(s, i);
    if (n >= 4) runs++;
    i += n >= 3 ? n : 1;
  }
  return runs;
}

/** An ABNF rule's repetition (`token = 1*tchar`, `*DIGIT`, `1*quoted-string`): a grammar in an RFC or a spec, not a value. */
const GRAMMAR_REPETITION = /^\d*\*\d*(?:[a-z]+(?:-[a-z]+)*|[A-Z]+)$/;

/** No letter or digit at all, %-escaped or not (`#@?:`, `%23%40%3F%3A`): marks typed to test escaping, not a credential. */
function isMarksOnly(v: string): boolean {
  let text = v;
  if (v.includes('%')) {
    try {
      text = decodeURIComponent(v);
    } catch {
      // not %-encoded
    }
  }
  return !/[\p{L}\p{N}]/u.test(text);
}

/** A word spelled out with one mark between its letters (`p:a:s:s`, `s-e-c-r-e-t`): a test of the mark; judged by the word. */
const SPELLED_OUT = /^[A-Za-z]([:._ -])[A-Za-z](?:\1[A-Za-z]){2,}$/;

/** Letters of one keyboard row typed to fill a field (`asdhjajsd`, `zxcvbnmz`): the home or bottom row. */
const ONE_KEYBOARD_ROW = /^(?:[asdfghjkl]{8,}|[zxcvbnm]{8,})$/i;

/** Digits counting from one (`1`, `01`, `123`, `123456`): a demo's counter, not a random part. */
const COUNTER = /^0?1(?:2(?:3(?:4(?:5(?:6)?)?)?)?)?$/;

/** Letters in alphabet order (`abcd`, `ABCDEFG`, `wxyz`), maybe then digits counting (`abc123`): typed to fill a field. */
function isAlphabetRun(v: string): boolean {
  const letters = /^([A-Za-z]{3,26})(\d*)$/.exec(v);
  if (!letters || (letters[2]!.length > 0 && !COUNTER.test(letters[2]!))) return false;
  const run = letters[1]!.toLowerCase();
  for (let i = 1; i < run.length; i++) if (run.charCodeAt(i) !== run.charCodeAt(i - 1) + 1) return false;
  return true;
}

/** A placeholder word written twice or more inside base64's shape (`LS0exampleexampleexample=`): a sample's stand-in for a certificate or key. */
function isPlaceholderWordInBase64(v: string): boolean {
  const found = /^[A-Za-z0-9+/]{0,4}?([a-z]{4,12})\1+[A-Za-z0-9+/]{0,4}=*$/.exec(v);
  return found !== null && WORDS.placeholder.has(found[1]!);
}

/** A kebab-case name that ends in what it holds (`container-registry-credentials`, `pg-credentials`, a registry's `gcr-registry-config`): a secret's or a type's name. */
const NAMES_WHAT_IT_HOLDS =
  /-(?:credentials|creds|secrets?|tokens?|passwords?|keys?|auth|certs?|tls|configs?|kubeconfig)$/;

/** A sample's first line, numbered, with the next number on the next line (`line1` then `line2`): a multi-line value shown by its lines. */
const NUMBERED = /^([A-Za-z]{2,12})(\d{1,3})$/;
const NEXT_NUMBERED_LINE = /^(?:\r?\n|\\n)[ \t]*([A-Za-z]{2,12})(\d{1,3})(?!\w)/;
function isNumberedLine(v: string, after: string): boolean {
  const numbered = NUMBERED.exec(v);
  if (numbered === null) return false;
  const next = NEXT_NUMBERED_LINE.exec(after);
  return next !== null && next[1] === numbered[1] && Number(next[2]) === Number(numbered[2]) + 1;
}

/** An API description (OpenAPI, Swagger) says so in its first lines. */
const API_DESCRIPTION = /^[ \t]*["']?(?:openapi|swagger)["']?[ \t]*:/m;
/** A key that makes what it holds an example of the API's data. */
const EXAMPLE_KEY = /^[ \t]*-?[ \t]*["']?(?:x-)?examples?["']?[ \t]*:/;
/** How far back the enclosing keys are looked for (a bounded walk, whatever the document's size). */
const EXAMPLE_LOOKBACK_CHARS = 16_384;

/**
 * The value sits under an `example:` or `examples:` key of an API description (an OpenAPI response's
 * sample data: `"apiKey": "oa_citations"`): found by indentation, walking back to the enclosing keys,
 * as far as EXAMPLE_LOOKBACK_CHARS.
 */
function underApiExample(text: string, start: number): boolean {
  if (!API_DESCRIPTION.test(text.slice(0, 2048))) return false;
  const floor = Math.max(0, start - EXAMPLE_LOOKBACK_CHARS);
  let lineStart = text.lastIndexOf('\n', start - 1) + 1;
  let indent = indentOf(text, lineStart);
  while (lineStart > floor && indent > 0) {
    const end = lineStart - 1;
    lineStart = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(lineStart, end);
    if (line.trim() === '') continue;
    const lineIndent = indentOf(text, lineStart);
    if (lineIndent >= indent) continue;
    if (EXAMPLE_KEY.test(line)) return true;
    indent = lineIndent;
  }
  return false;
}

function indentOf(text: string, at: number): number {
  let i = at;
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  return i - at;
}

/**
 * Go code where a value was expected: a package's exported name (`schema.DefaultPasswordConfig,`,
 * `schema.AuthenticationBackendFilePassword{}`) or a pointer type (`*xoauth2.Token`). The name is words
 * in camel humps, and code marks it: a pointer, a composite literal's brace, or an argument's comma.
 */
// Humps of three letters or more, or an acronym before the next hump (`OpenIDConnect`): words, not a random run.
const GO_NAME = String.raw`[a-z][a-z0-9]*\.(?:[A-Z][a-z]{2,}|[A-Z]{2,}(?=[A-Z][a-z]|$|[{},]))+`;
const QUALIFIED_GO_NAME = new RegExp(`^(?:[*&]${GO_NAME}|${GO_NAME}(?:\\{\\}?|,))$`);

/** A CloudFormation intrinsic function's short form (`Value: !Join [ "-", … ]`): the value is computed from its arguments. */
const CLOUDFORMATION_FUNCTION =
  /^!(?:Ref|Sub|Join|GetAtt|Select|Split|ImportValue|FindInMap|If|Base64|Cidr|GetAZs|Equals|Not|And|Or|Transform)$/;

/** An AWS ARN before the value (`arn:aws:secretsmanager:us-east-1:123:secret:`): the value names the secret where it is kept. */
const ARN_BEFORE = /arn:aws[\w-]*:[\w-]+:[\w-]*:[\w-]*:[\w-]+[:/]$/;

/**
 * A SigV4-style credential scope (`AKID/20181210/eu-central-1/s3/aws4_request`, Cloud Storage's
 * `account%40project.iam.gserviceaccount.com%2F20250220%2Fauto%2Fstorage%2Fgoog4_request`), %-escaped or not:
 * who signed, on which day, for which service; not the signature, which its own rule masks.
 */
const SIGV4_SCOPE = /(?:\/|%2F)(?:aws4|goog4)_request$/i;
/** A date or a date and time in ISO 8601 (`2025-12-29T22:35:29Z`, `2024-01-31`): a lease's expiry, never a secret. */
const ISO_TIMESTAMP =
  /^\d{4}-[01]\d-[0-3]\d(?:[T ][0-2]\d:[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-][0-2]\d:?[0-5]\d)?)?$/;

/**
 * A URN (`urn:k8s:secret:redis:password`, Traefik's reference to a Kubernetes Secret's key): a name by its
 * definition (RFC 8141), short segments joined by colons. A segment shaped like a generated value (16
 * characters or more of three classes) keeps it a literal: a token written after `urn:` is still a token.
 */
function isUrnName(v: string): boolean {
  if (!URN.test(v)) return false;
  for (const segment of v.split(':')) {
    if (segment.length > 40 || (segment.length >= 16 && charClassCount(segment) >= 3)) return false;
  }
  return true;
}
const URN = /^urn:[a-z0-9][a-z0-9-]{0,31}:[A-Za-z0-9._~/:-]{1,200}$/i;

/** Words closing Markdown bold (`Manager**`), after a key that the bold opened (`**Password `): a title, not a value. */
const BOLD_CLOSER = /^[A-Z][A-Za-z]{1,30}(?:\*\*|__)[.,:;!?)]?$/;
const BOLD_OPENER = /(?:\*\*|__)[A-Za-z][\w -]{0,40}$/;

/** A terminal colour escape, raw or as JSON and Python write it (`\u001b[38;5;241m`, `\x1b[0m`, `\033[1m`). */
const ANSI_ESCAPE = /(?:\u001b|\\u001[bB]|\\x1[bB]|\\033|\\e)\[[0-9;]{0,20}[A-Za-z]/g;
const ALNUM_RUN = /[A-Za-z0-9]{4}/;
/**
 * A value holding a colour escape, and nothing that could be a key once the escapes are gone: a notebook's
 * traceback printed `api_key \u001b[38;5;241m=\u001b[39m os.environ…`, where the value read is the `=`.
 */
function isAnsiColouredMark(v: string): boolean {
  if (!v.includes('[') || v.length > 400) return false;
  const rest = v.replace(ANSI_ESCAPE, '');
  return rest.length < v.length && !ALNUM_RUN.test(rest);
}

/** A scope operator in code cut at its first `:` (`Aws::Credentials.new(`): the value is a constant's path. */
const SCOPE_IN_CODE = /^:[A-Z]\w*(?:::[A-Z]\w*)*(?:\.[a-z_]\w*)?\(?$/;

/** An authorization scheme before the value (`bearer hello`): the value is judged without it. */
const AUTH_SCHEME = /^(?:bearer|basic|token|digest)[ \t]+(\S+)$/i;

/**
 * A setting's name on a command line, followed by its value (`pulumi config set --secret mentionbot:slackToken
 * xoxb-…`, `--secret jwksUri <jwksUri>`): a `namespace:key` or camelCase name after a flag, with another
 * argument after it. The value is that argument, not the name.
 */
// Letters only, and not two runs of hex (`deadbeef:cafebabe` is a Sidekiq credential).
const SETTING_NAME = /^(?![a-f]+:[a-f]+$)(?:[a-z][a-z-]*:[a-z]+(?:[A-Z][a-z]+)*|[a-z]+(?:[A-Z][a-z]+)+)$/;
const FLAG_BEFORE = /(?:^|[ \t])--?[a-z][\w-]*[ \t]+$/;
const ARGUMENT_AFTER = /^[ \t]+[^\s#|&;>]/;

/** Markdown emphasis around a value (`* Password: *alice*`): the value is the word inside. */
const MARKDOWN_EMPHASIS = /^[*_]{1,3}([^*_\s]+)[*_]{1,3}$/;

/**
 * Strong emphasis opened before a word and closed further on the line (`doing: **Authentication > SIGN-IN
 * METHOD > SAVE**`, `__Settings → Tokens__`): Markdown around a menu path or a phrase, the value its first word.
 */
const EMPHASIS_OPENED = /^(\*\*|__)[A-Za-z][A-Za-z-]*$/;
function isEmphasisOpened(v: string, after: string): boolean {
  const marks = EMPHASIS_OPENED.exec(v)?.[1];
  if (marks === undefined) return false;
  const newline = after.indexOf('\n');
  return (newline === -1 ? after : after.slice(0, newline)).includes(marks);
}

/** An HTTP request line's protocol version (`GET /basic-auth/user/passwd HTTP/1.1`): after a path that ends in a word like `passwd`. */
const HTTP_VERSION = /^HTTPS?\/\d(?:\.\d)?$/;
/** A call the string is joined to (`',listKeys(resourceId(` in an ARM `concat`): what is left of the value is computed. */
const CALL_AFTER_CONCATENATION = /^[,+][ \t]*(?:[A-Za-z_][\w.]*\()+$/;

/** A command with an option, in backticks (`` `op signin --account a --raw` ``, `` `bw unlock --raw` ``): run for its output. */
const BACKTICK_COMMAND = /^[a-z][\w-]*(?:[ \t]+[\w./-]+)*[ \t]+-{1,2}[a-z][\w-]*/;
/** A script or data file's name then a colon (`-a script.sh:`), as tools that pair a file with its type write it. */
const FILE_BEFORE_COLON = /(?:^|[\s=])[\w.-]+\.(?:sh|py|rb|pl|ps1|bat|js|ts|ya?ml|json|txt|cfg|conf|ini|toml|xml):$/;
/** A type written as lower-case words joined by `-` (`x-shellscript-per-boot`, `cloud-config`). */
const MEDIA_TYPE_WORDS = /^[a-z]+(?:-[a-z]+)+$/;

/** A value a string literal's escape ends (`password pass\ndefault\n` written into a .netrc): judged up to the escape. */
const BEFORE_ESCAPE = /^([^\\]{1,64})\\[nrt]/;

/** A Home Assistant style `!secret name` tag: the value is an entry's name in a separate secrets file. */
const SECRET_TAG_BEFORE = /!secret[ \t]+$/;

/** A flag that turns a secret off or asks for it (`adduser --disabled-password mastodon`, `--no-password`): it takes no value; the next word is another argument. */
const FLAG_WITHOUT_VALUE =
  /--(?:no|disabled?|without|skip|ask|prompt|random|generate|empty)-(?:[a-z]+-)*(?:password|passwd|passphrase|token|secret|key)[ \t]+$/;

/** Helm's `checksum/secret:` annotation (a pod restarts when the digest changes): a SHA-256 of the Secret's manifest, not its content. */
const CHECKSUM_KEY_BEFORE = /(?:^|[\s"'])checksum\/[\w.-]+["']?[ \t]*:[ \t]*["']?$/;
const HEX_DIGEST = /^[0-9a-f]{32,128}$/;
/** A content digest's algorithm right before the value (`image: repo@sha256:…`, `digest: sha256:…`): a hash of public content. */
const DIGEST_ALGORITHM_BEFORE = /(?:^|[@\s"'=:])sha(?:256|384|512):$/;
/** An image reference pinned by digest (`ghcr.io/org/runner:2022-06-29@sha256:…`): names public content. */
const IMAGE_BY_DIGEST =
  /^(?:[a-z0-9.-]+(?::\d{1,5})?\/)?[a-z0-9._-]+(?:\/[a-z0-9._-]+)*(?::[\w.-]{1,128})?@sha(?:256|384|512):[0-9a-f]{16,128}$/;

/**
 * An uncompressed elliptic-curve public point (65 bytes that start with 0x04, base64 or base64url): a Web
 * Push subscription's `p256dh` or a server's VAPID public key, published so that browsers can encrypt to it.
 */
function isEcPublicPoint(v: string): boolean {
  if (v.length < 86 || v.length > 88 || !/^B[A-Za-z0-9+/_-]+={0,2}$/.test(v)) return false;
  const bytes = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 65 && bytes[0] === 4;
}

/**
 * A URL whose scheme the rule took for a key (`source: salt://postgres/templates/pg_hba.conf.j2`,
 * `file://…`): the "key" ends at the scheme's colon and the value is the rest of the URL, a path that ends
 * in a file name. Base64 (which may start with `//`) never holds a `.`, so the file name tells them apart.
 */
const SCHEME_KEY_BEFORE = /(?:^|[^\w.+-])[A-Za-z][\w+-]{1,20}:$/;
const URL_REST = /^\/\/[\w-]+(?:\.[\w-]+)*(?:\/[\w.%-]+)+$/;
/** Or a host after a web scheme (`image.url=http://some-url`): a scheme the rule read as a user, a host as the password. */
const WEB_SCHEME_BEFORE = /(?:^|[^\w.+-])(?:https?|ftps?|wss?|git|ssh|s3|gs|oci):$/i;
const HOST_REST = /^\/\/[a-z0-9]+(?:[.-][a-z0-9]+)+(?::\d{1,5})?(?:\/[\w.%-]*)*$/;
const isUrlAfterScheme = (v: string, keyText: string) =>
  (SCHEME_KEY_BEFORE.test(keyText) && URL_REST.test(v) && /\.[A-Za-z][\w-]*$/.test(v)) ||
  (WEB_SCHEME_BEFORE.test(keyText) && HOST_REST.test(v));

/**
 * A host name before the value and the URL's path, query or fragment after its digits (`http://google.com:80#@…`,
 * `//localdomain.pw:80#@…`): the value is a port, not a password (`//john.doe:123456@` stays a password).
 */
const HOST_BEFORE = /(?:^|[/@\s])[\w-]+(?:\.[\w-]+)*\.[a-z]{2,12}:$/;
const PORT_AND_REST = /^\d{1,5}[#?/][^\s]*$/;

/** An object identifier (`1.2.840.113556.1.4.2239`, an LDAP control's OID): a published number, dots between arcs. */
const OBJECT_IDENTIFIER = /^[0-2](?:\.\d{1,9}){3,}$/;

/**
 * Markdown where the rule expected a value: a link's text running into its target (`Usage](../x.md)`,
 * `Policies](#phase-3)`), a link reference's relative target (`../session/introduction.md#secret`), a
 * footnote mark (`Flow_[^18]`) or a handle in parentheses (`(@richard87)`).
 */
const MARKDOWN_SYNTAX = /\]\(|\[\^\d+\]|^\(@[\w-]+\)?$/;
const RELATIVE_LINK = /^(?:\.{1,2}\/)+[\w.%/-]*(?:#[\w-]*)?$|^#[a-z][\w-]*$/;

/**
 * A command line in a code span (`Make sure the tests pass: \`docker buildx bake test\``): a build or package
 * tool's name, then lower-case words; "pass" was a verb. A passphrase does not start with a tool's name.
 */
const COMMAND_LINE =
  /^(?:docker|podman|npm|npx|yarn|pnpm|make|go|cargo|kubectl|helm|git|python3?|pip3?|node|bundle|rake|mvn|gradle|dotnet|terraform|ansible-playbook|salt|puppet|composer|php|sudo)[ \t]+[a-z][\w.:/-]*(?:[ \t]+[\w.:/=-]+)*$/;

/** Values written as `{name}` placeholders joined by marks (`{metadata}.{payload}.{signature}`, `{user}:{token}`). */
const BRACED_PLACEHOLDERS = /^\{[A-Za-z_][\w-]*\}(?:[.:/_-]\{[A-Za-z_][\w-]*\})*$/;
/** Words in braces where a value goes (`{token over here}`, `{your api key}`): a note to the reader, not a value. */
const BRACED_WORDS = /^\{[A-Za-z]+(?: [A-Za-z]+){1,7}\}$/;

/** A name in capitals that says it is a test value (`CLEANUPTEST`, `MOCKTOKEN`, `FAKESECRET`): a constant's label, not a secret. */
const CAPITALS_TEST_LABEL =
  /^(?:(?:TEST|FAKE|DUMMY|MOCK|EXAMPLE|SAMPLE|DEMO|STUB)[A-Z]{3,16}|[A-Z]{3,16}(?:TEST|FAKE|DUMMY|MOCK|EXAMPLE|SAMPLE|DEMO|STUB))$/;

/** A wrapped error's label (`failed to get token: oauth2: "invalid_grant"`): a message's part, followed by the next one. */
const ERROR_CHAIN_AFTER = /^:[ \t]+\\?["'A-Za-z]/;
const ERROR_LABEL = /^[a-z][a-z0-9_.-]{1,30}$/;

/** Words a value names its own kind with (`AVeryStrongPasswordUShouldEncrypt!`, `ThisIsNotARealToken`). */
const KIND_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'token', 'key', 'apikey']);

/**
 * A sentence written as a value: four or more words (camel humps or separated), one naming the value's
 * kind (`password`, `token`) and at least half of them words that describe a value or join a sentence
 * (`a`, `very`, `strong`, `not`, `real`). A passphrase of random words names no kind and is mostly not such words.
 */
function isSentenceAboutItself(v: string): boolean {
  if (v.length < 12 || v.length > 80) return false;
  // Blank-separated words are read as a sentence's words, contractions undone (`it's` is `it`, `don't` is
  // `not`): `shhhh! it's a github secret`, `it's my little secret, don't tell`.
  const words = v.includes(' ') ? sentenceWords(v) : v.replace(TRAILING_MARKS, '').match(WORD_OR_COUNT);
  if (words === null || words.length < 4) return false;
  const lower = words.map((w) => w.toLowerCase());
  if (!lower.some((w) => KIND_WORDS.has(w))) return false;
  return 2 * lower.filter((w) => FILLER_WORDS.has(w)).length >= lower.length;
}

/** A sentence's words split at blanks, marks around them dropped, contractions undone; null if a part holds no letter. */
function sentenceWords(v: string): string[] | null {
  const words: string[] = [];
  for (const part of v.split(BLANKS)) {
    if (part === '') continue;
    const word = part.replace(MARKS_AROUND, '').toLowerCase();
    if (!HAS_LETTER.test(word)) return null;
    words.push(NEGATION.test(word) ? 'not' : word.replace(CONTRACTION, ''));
  }
  return words;
}
const BLANKS = /\s+/;
const MARKS_AROUND = /^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g;
const HAS_LETTER = /[a-z]/;
const NEGATION = /^[a-z]+n[’']t$/;
const CONTRACTION = /[’'](?:s|re|m|ll|ve|d)$/;

/** The value is its key in leetspeak (`user2Password = "us3r2P455W0Rd!"`): a test's label, not a chosen secret. */
function isKeyInLeetspeak(v: string, key: string): boolean {
  const keyText = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (keyText.length < 6 || v.length > 40) return false;
  const plain = unleet(v.replace(TRAILING_MARKS, '')).replace(/[^a-z0-9]/g, '');
  return plain === keyText && plain !== v.toLowerCase();
}

/**
 * A JSON object as the value, escaped in a string or not (`"credentialData" : "{\"hashIterations\":27500,
 * \"algorithm\":\"pbkdf2-sha256\"}"`, `Token: "{\"access_token\": \"foobar\"}"`): judged by its fields.
 * Kept only when no string inside is a literal: a field whose key names a secret is classified as a value
 * of that key, and any other string shaped like a generated credential counts as a literal (fail closed).
 */
const SECRET_FIELD = /pass|secret|token|key|salt|cred|auth|sig|hash|value|cookie|session|private/i;
function isJsonWithoutLiteral(v: string): boolean {
  if (v.length > 4000 || v.charCodeAt(0) !== 123) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v.includes('\\"') ? v.replace(/\\(["\\])/g, '$1') : v);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== 'object') return false;
  const stack: [string, unknown][] = Object.entries(parsed as object);
  let strings = 0;
  while (stack.length > 0) {
    const [field, inner] = stack.pop()!;
    if (typeof inner === 'string') {
      if (++strings > 50) return false;
      if (inner.length <= 2) continue;
      if (SECRET_FIELD.test(field)) {
        if (classifyValue(inner, `"${field}": "`).kind === 'literal') return false;
      } else if (inner.length >= 16 && charClassCount(inner) >= 3) return false;
    } else if (inner !== null && typeof inner === 'object') {
      stack.push(...Object.entries(inner as object));
      if (stack.length > 200) return false;
    }
  }
  return true;
}

/**
 * A test's label with a counter (`request-interpolated-script-1` under `bru.setVar('request-token-1', …)`,
 * `collection-value-456`, `INITIAL_VALUE_collection_env_e2e_001`, `search-key-789`): words joined by `-` or
 * `_`, a number of up to four digits among them, and a part that says what the value is (`value`, `key`,
 * rules/words.json) or repeats a word of its own line. A passphrase's words name nothing around them.
 */
const LABEL_PART = /^(?:[A-Za-z]{2,}|\d{1,4}|[a-z]\d[a-z])$/;
function isCountedLabel(v: string, keyText: string): boolean {
  if (v.length < 8 || v.length > 60) return false;
  const parts = v.split(/[-_]/);
  if (parts.length < 3 || !parts.every((part) => LABEL_PART.test(part))) return false;
  if (!parts.some((part) => /^\d{1,4}$/.test(part))) return false;
  const line = wordsOf(keyText.slice(keyText.lastIndexOf('\n') + 1));
  return parts.some((part) => {
    const word = part.toLowerCase();
    return (word.length >= 3 && FILLER_WORDS.has(word)) || (word.length >= 4 && line.has(word));
  });
}

/** The nouns a key names its secret with: a value sharing only these with its key says nothing about itself. */
const SECRET_NOUNS = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwd',
  'pass',
  'key',
  'keys',
  'auth',
]);
/** How a key's noun is shortened in a test's label (`tk-real` under `token:`, `pw-1` under `password:`). */
const NOUN_SHORT: [RegExp, ReadonlySet<string>][] = [
  [/token/i, new Set(['tk', 'tok', 'tkn'])],
  [/pass/i, new Set(['pw', 'pwd'])],
  [/secret/i, new Set(['sec', 'sek'])],
  [/cred/i, new Set(['cred', 'creds'])],
];
const LABEL_WORD = /^(?:[A-Za-z]{2,}|\d{1,5})$/;

/**
 * A label spelled from its own key (`RefreshToken: "RefreshError"`, `"Refreshed"`, `"refresh12345"`, `token:
 * 'tk-real'`, `'implicit-tk'`): words (camel humps, or parts joined by `-` or `_`) and a counter, one of them a
 * word of the key other than the secret's noun, or the noun shortened. A generated part (letters and digits
 * mixed) is never such a word, so `githubToken: github_pat_11A…` stays a literal.
 */
function isLabelFromItsKey(v: string, key: string): boolean {
  if (v.length < 4 || v.length > 40 || key.length === 0) return false;
  const split = v.replace(/([a-z])([A-Z])/g, '$1-$2').replace(/([A-Za-z])(\d)/g, '$1-$2');
  const parts = split.toLowerCase().split(/[-_]/);
  if (!parts.every((part) => LABEL_WORD.test(part))) return false;
  const keyWords = [...wordsOf(key)].filter((word) => word.length >= 4 && !SECRET_NOUNS.has(word));
  const shorts = NOUN_SHORT.find(([noun]) => noun.test(key))?.[1];
  return parts.some(
    (part) =>
      (parts.length >= 2 && shorts?.has(part) === true) ||
      (part.length >= 4 &&
        keyWords.some((word) => part === word || (part.startsWith(word) && part.length - word.length <= 3))),
  );
}

/** Keys typed along a row, then a few digits (`asd132`, `qwe456`): a typist's filler, too short for the filler test. */
const ROW_AND_DIGITS = /^([a-z]{3,4})\d{2,4}$/;
const isRowAndDigits = (v: string) => {
  const letters = ROW_AND_DIGITS.exec(v)?.[1];
  return letters !== undefined && typedRunAt(letters, 0) === letters.length;
};

/**
 * A label made of its key's initials (`consumerSecret: 'col_cs'`, `accessTokenSecret: 'col_ts'`,
 * `privateKey: 'inline_pk'`): lower-case words joined by `_` or `-`, one of them the initials of the key's
 * last two words or more. A generated value does not spell its field's initials as a word of its own.
 */
function isKeyInitialsLabel(v: string, key: string): boolean {
  // Short words: a generated tail of lower-case letters runs longer than a word.
  if (v.length > 40 || !/^[a-z]{1,12}(?:[_-][a-z]{1,12})+$/.test(v)) return false;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length > 0);
  if (words.length < 2) return false;
  const initials = words.map((word) => word[0]).join('');
  const parts = v.split(/[_-]/);
  return parts.some((part) => part.length >= 2 && initials.endsWith(part));
}

/**
 * A Markdown code span that closes right before the value (`behind \`MYSQL_PASSWORD=\` (for mariadb/mysql)
 * or`): the key and its `=` are the span's text, what follows is the sentence (the classifier asks only of a
 * value with a blank in it: a token written after the span is still judged as one). An odd number of backticks on
 * the key's line, the last of them after the separator, means the last one closes a span.
 */
/** Two more words on the line after the value (`` `token`: Pre-shared token used to … ``): a sentence goes on. */
/** A term in a code span then a colon, as Markdown lists define fields (`` - `token`: ``): a description follows. */
const SPAN_TERM_BEFORE = /(?:^|\n)[ \t]*(?:[-*+][ \t]+)?`[\w.-]+`[ \t]*:[ \t]*$/;
const PROSE_WORD = /^[A-Za-z][a-z]+(?:-[a-z]+)*$/;
const WORDS_AFTER = /^[ \t]+[a-z]{2,}[ \t]+[a-z]{2,}\b/;
function keySpanClosed(keyText: string): boolean {
  if (!/[=:]`$/.test(keyText)) return false;
  const line = keyText.slice(keyText.lastIndexOf('\n') + 1, -1);
  let ticks = 0;
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) === 96) ticks++;
  return ticks % 2 === 1;
}

/** A letter or two and a counter (`Password: "f123"` beside `Name: "foo_owner"`, `u1234`): a test's label for one of several users. */
const LETTER_AND_COUNTER = /^[A-Za-z]{1,2}(?:123|1234|12345)$/;

/** A label ending in a colon (`password: argon2: option 'variant' must be …`): a message names a setting, a value has no colon there. */
const COLON_LABEL = /^[a-z][a-z0-9_-]{1,30}:$/;

/** "pass" as a verb before a colon (`Make sure the tests pass:`, `Both requests should pass:`): what follows is no password. */
const PASS_AS_VERB =
  /\b(?:should|must|will|would|can|could|tests?|checks?|to|all|then|and|does|do)[ \t]+pass[ \t]*:[ \t]*`?$/i;

/** A word naming the option itself where its value was expected (`use the --password flag`). */
const OPTION_WORD = /^(?:flag|option|argument|parameter|switch)s?$/i;

/**
 * The product's own name, as the images the file runs spell it (`KEYSTORE_PASSWORD: confluent` in a compose
 * file of `confluentinc/cp-server` images): a demo's default, like the name its path spells. The words of each
 * `image:` reference, and each without a company suffix (`inc`, `io`, `hq`, `labs`); read once per item.
 */
const IMAGE_LINE = /^[ \t]*-?[ \t]*["']?image["']?[ \t]*[:=][ \t]*["']?([\w./-]+)/gm;
const COMPANY_SUFFIX = /(?:inc|io|hq|labs|corp|org|ltd|oss)$/;
const IMAGE_WORDS_SCAN = 65_536;
let imageWordsFor: { text: string; words: Set<string> } | undefined;
function imageWords(text: string): Set<string> {
  if (imageWordsFor?.text === text) return imageWordsFor.words;
  const words = new Set<string>();
  for (const match of text.slice(0, IMAGE_WORDS_SCAN).matchAll(IMAGE_LINE)) {
    for (const word of match[1]!.toLowerCase().split(/[/._-]/)) {
      if (word.length < 4) continue;
      words.add(word);
      const bare = word.replace(COMPANY_SUFFIX, '');
      if (bare.length >= 4) words.add(bare);
    }
  }
  imageWordsFor = { text, words };
  return words;
}

/** What a check reads: the value as judged, the text around it, and the key, once the value alone has not decided. */
interface Candidate {
  raw: string;
  value: string;
  keyText: string;
  path: string | undefined;
  ruledOut: { placeholder?: boolean; reference?: boolean };
  after: string;
  item: { text: string; start: number } | undefined;
  /** Inside a URL's authority (`amqps://user:…@`) the word before the value is a user name, not a key. */
  inUrl: boolean;
  key: string;
  plain: string;
}

/**
 * One piece of evidence: a test, and the class and words it gives when it holds; or a step that decides
 * its own verdict (it may name one of several classes, or ask the classifier about part of the value).
 */
type Check =
  | readonly [test: (c: Candidate) => unknown, kind: ValueKind, evidence: string]
  | ((c: Candidate) => ValueVerdict | undefined);

function decide(checks: readonly Check[], c: Candidate): ValueVerdict | undefined {
  for (const check of checks) {
    if (typeof check === 'function') {
      const found = check(c);
      if (found !== undefined) return found;
    } else if (check[0](c)) {
      return verdict(check[1], check[2]);
    }
  }
  return undefined;
}

/** A key=value field whose key names a setting or an identity (`path=/v1/aws/creds/readonly`, `id=vault2`). */
function isSettingPair(v: string): boolean {
  const pair = SETTING_PAIR.exec(v);
  return pair !== null && (SETTING_KEY.test(pair[1]!) || IDENTITY_KEY.test(pair[1]!));
}

/** The value under a name/value pair's `value:` names the pair's name (`GITHUB_OAUTH_SECRET` … `value: github`). */
function namesItsPairName(c: Candidate): boolean {
  if (c.key !== 'value') return false;
  const pairName = NAME_OF_PAIR.exec(c.keyText.slice(-200))?.[1];
  return pairName !== undefined && namesItsKey(c.value, pairName);
}

/** A made-up value ended by its string literal's escape (`changeme\n`): the part before it judged whole. */
function madeUpBeforeEscape(c: Candidate): boolean {
  const escaped = BEFORE_ESCAPE.exec(c.value);
  return (
    escaped !== null && (isPlaceholder(escaped[1]!) || classifyValue(escaped[1]!, c.keyText, c.path).kind !== 'literal')
  );
}

/** A placeholder word spelled out with a mark between its letters (`p-a-s-s-w-o-r-d`). */
function isSpelledOutPlaceholder(v: string): boolean {
  const spelled = SPELLED_OUT.exec(v);
  return spelled !== null && isPlaceholder(v.split(spelled[1]!).join(''));
}

/** A name a Kubernetes object could have: a secret's name by its key, by what it ends in, or by the prose before it. */
function secretObjectName(c: Candidate): ValueVerdict | undefined {
  if (!c.inUrl && ENTRY_KEY.test(c.key) && /[-._/]/.test(c.value) && isEntryName(c.value)) {
    return verdict(
      'secret-name',
      "the key names which entry of a secret is read or pushed, and the value is an entry's name",
    );
  }
  if (c.inUrl || !isObjectName(c.value)) return undefined;
  if (SECRET_OBJECT_KEY.test(c.key) && !CREDENTIAL_SECRET_KEY.test(c.key)) {
    return verdict('secret-name', 'the key holds the name of a secret object, and the value is such a name');
  }
  if (NAMES_WHAT_IT_HOLDS.test(c.value))
    return verdict('secret-name', 'a name that ends in what it holds (…-credentials, …-token)');
  // Only the value's own line is prose about it: `secret:` a line above is another key.
  const line = c.keyText.slice(c.keyText.lastIndexOf('\n') + 1).trim();
  if (/[ \t]/.test(line) && /\bsecrets?\b/i.test(line) && !CREDENTIAL_SECRET_KEY.test(line)) {
    return verdict('secret-name', 'prose names a secret object by its name');
  }
  return undefined;
}

/** After an auth scheme's word (`Bearer …`, `Basic …`) the rest is judged on its own; kept if it is not a literal. */
function afterAuthScheme(c: Candidate): ValueVerdict | undefined {
  const scheme = AUTH_SCHEME.exec(c.value);
  if (!scheme) return undefined;
  const rest = classifyValue(scheme[1]!, c.keyText, c.path, {}, c.after);
  return rest.kind !== 'literal' ? rest : undefined;
}

/**
 * The evidence the value alone gives, with the text around it, in order: cheap checks first, then the ones
 * that read more. The first that holds decides.
 */
const VALUE_CHECKS: readonly Check[] = [
  [(c) => c.value.length === 0, 'placeholder', 'empty value'],
  [
    (c) => JOINED_SEGMENT.test(c.keyText),
    'reference',
    "the 'key' is a segment of a name joined by colons (urn:k8s:secret:tls:key): the name of a secret, not its content",
  ],
  [
    (c) =>
      (/\s/.test(c.value) || (PROSE_WORD.test(c.value) && WORDS_AFTER.test(c.after))) &&
      (keySpanClosed(c.keyText) || SPAN_TERM_BEFORE.test(c.keyText)),
    'documentation',
    "the key's Markdown code span closes before the value: the value is the sentence",
  ],
  [(c) => c.value.length <= 2, 'placeholder', 'one or two characters: too short to be a credential'],
  [
    (c) => SYMBOL.test(c.value),
    'documentation',
    "a symbol (`:empty`, Ruby's `:random`): a keyword the tool reads, not a value",
  ],
  [
    (c) => PEM_ARMOR.test(c.value + c.after),
    'documentation',
    "a PEM block's BEGIN line: the key is the body on the lines after it, which the private-key rules judge",
  ],
  // A quoted string inside the span is a literal the template passes on (`{{ with secret "…" }}`).
  [
    (c) => !QUOTED_BEFORE.test(c.keyText) && !/^\s*\\?["'`]/.test(c.raw) && insideTemplate(c.keyText, c.raw + c.after),
    'reference',
    'inside a template expression ({{ }}, [[ ]], {% %}, <% %>, a shell expansion)',
  ],
  [
    (c) => !c.ruledOut.reference && isReference(c.value),
    'reference',
    'a reference or template expression, or an encrypted value',
  ],
  [
    (c) => COMMAND_SUBSTITUTION.test(c.value),
    'reference',
    'a shell command substitution: the value is computed when the line runs',
  ],
  [(c) => VARIABLE_BUILT.test(c.value), 'reference', 'built from a variable expansion ($name)'],
  [
    (c) => PAREN_REFERENCE.test(c.value),
    'reference',
    "a pipeline's variable or parameter ($(params.x)): filled in when the task runs",
  ],
  [(c) => TEMPLATE_AFTER.test(c.after), 'reference', 'the fixed part of a string a template span completes'],
  // A template span the value opens, whose own quotes cut the match (`"[[ var "db_password" . ]]"`).
  [
    (c) => TEMPLATE_AFTER.test(c.raw.trimStart() + c.after),
    'reference',
    'a template expression, cut by the quotes inside it',
  ],
  [(c) => ARN_BEFORE.test(c.keyText), 'reference', 'an ARN names where the secret is kept'],
  [
    (c) => SECRET_TAG_BEFORE.test(c.keyText),
    'reference',
    'a !secret tag: the value names an entry of a separate secrets file',
  ],
  [
    (c) => FLAG_WITHOUT_VALUE.test(c.keyText),
    'documentation',
    'a flag that turns a secret off or asks for it takes no value',
  ],
  [
    (c) => CHECKSUM_KEY_BEFORE.test(c.keyText) && HEX_DIGEST.test(c.value),
    'public',
    "a checksum annotation: a digest of the Secret's manifest",
  ],
  [
    (c) => HEX_DIGEST.test(c.value) && DIGEST_ALGORITHM_BEFORE.test(c.keyText),
    'public',
    'a content digest (sha256:…): a hash of an image or file, public',
  ],
  [(c) => IMAGE_BY_DIGEST.test(c.value), 'public', 'an image reference pinned by its digest (name@sha256:…)'],
  [
    (c) => SIGV4_SCOPE.test(c.value),
    'public',
    'a SigV4-style credential scope (key id or account, date, region, service)',
  ],
  [(c) => ISO_TIMESTAMP.test(c.value), 'documentation', 'a date and time (ISO 8601)'],
  [
    (c) => BOLD_CLOSER.test(c.raw) && BOLD_OPENER.test(c.keyText),
    'documentation',
    'a word of a bold title the key opens (**Password Manager**)',
  ],
  [(c) => isUrnName(c.value), 'reference', "a URN: the name of a secret's key (urn:k8s:secret:…), not its content"],
  [
    (c) => isAnsiColouredMark(c.value),
    'documentation',
    "a terminal's colour codes around a mark or a short word (a notebook's highlighted traceback)",
  ],
  [(c) => SCOPE_IN_CODE.test(c.value) && /[A-Za-z]:$/.test(c.keyText), 'reference', "code: a constant's path (A::B)"],
  [(c) => EXPANSION_LIST.test(c.value), 'reference', 'a list of variable expansions'],
  [(c) => QUALIFIED_GO_NAME.test(c.value), 'reference', "code: a package's exported name or a pointer type"],
  [
    (c) => CLOUDFORMATION_FUNCTION.test(c.value),
    'reference',
    "a CloudFormation function's short form (!Join, !Sub): computed when deployed",
  ],
  [(c) => SECRET_AND_FIELD.test(c.value), 'reference', "a secret's name and the field in it (name:field)"],
  [(c) => FILE_PATH.test(c.value) || AT_FILE.test(c.value), 'reference', 'a file path: the value is kept in that file'],
  [(c) => READS_A_FILE.test(c.value), 'reference', 'a command that reads the value from a file'],
  [
    (c) => /\$\{\w+:$/.test(c.keyText) && /^-\d{1,6}\}?$/.test(c.value),
    'documentation',
    "a number as a shell expansion's default ($X with :-10)",
  ],
  [
    (c) => OPTION.test(c.value) || (OPTION_ALONE.test(c.value) && c.after.charCodeAt(0) !== 40),
    'documentation',
    'a command-line option where a value was expected',
  ],
  [(c) => DURATION.test(c.value), 'documentation', 'a duration'],
  [(c) => isSettingPair(c.value), 'documentation', 'a key=value field naming a setting or an identity'],
  [
    (c) => PIPELINE.test(c.value) || REGEX_ESCAPES.test(c.value),
    'documentation',
    'shell code: a pipeline or a regular expression',
  ],
  [(c) => GRAMMAR_REPETITION.test(c.value), 'documentation', "a grammar rule's repetition (ABNF 1*tchar)"],
  [(c) => isMarksOnly(c.value), 'placeholder', 'no letter or digit: marks typed to test escaping'],
  [(c) => HMAC_DIGEST.test(c.value), 'public', 'a published HMAC digest (an audit log hashes secrets so)'],
  [(c) => UNIX_SOCKET.test(c.value), 'documentation', "a Unix socket's address"],
  // Bounded first: the pattern's capitals-around-a-vowel backtracks on a long run of capitals.
  [(c) => c.value.length <= 200 && CONSTANT_NAMES.test(c.value), 'placeholder', "constants' names standing for values"],
  [
    (c) => isConstantWithAcronyms(c.value),
    'reference',
    "a constant's name with acronyms among its words (capitals joined by underscores)",
  ],
  [(c) => isRunsOfCharacters(c.value), 'placeholder', 'runs of one character fill the value'],
  [
    (c) => KEY_OF_PAIR.test(c.value) || KEY_AND_CONSTANTS.test(c.value),
    'documentation',
    "a key of a key=value pair (its value a constant's name or still to come)",
  ],
  [(c) => ESCAPED_EXPANSION.test(c.value), 'reference', 'an escaped shell expansion ($$(…), $${…})'],
  [(c) => ARM_EXPRESSION.test(c.value), 'reference', "an ARM template expression ([parameters('x')])"],
  [(c) => REGEX_LITERAL.test(c.value), 'documentation', 'a regular expression literal (/…/flags)'],
  [(c) => KEY_IS_A_PATH.test(c.keyText), 'documentation', "the key is a file path's last segment (/etc/passwd)"],
  [
    (c) => NUMERIC_ID_PAIR_BEFORE.test(c.keyText) && /^\d{1,6}$/.test(c.value),
    'documentation',
    'a numeric user and group id (uid:gid)',
  ],
  [
    (c) =>
      !QUOTED_BEFORE.test(c.keyText) &&
      (CODE_IDENTIFIER.test(c.value) || isLongCodeIdentifier(c.value)) &&
      (CODE_AFTER.test(c.after) || isIdentifierAtLineEnd(c)),
    'reference',
    'code: an identifier the value is read from',
  ],
  [
    (c) => TYPE_ASSERTION.test(c.value) && ASSERTED_TYPE_AFTER.test(c.after),
    'reference',
    "code: a type assertion on a variable (Go's x.(*T))",
  ],
  [(c) => SCHEME_REFERENCE.test(c.value), 'reference', 'a scheme and path naming where the secret is kept'],
  [
    (c) => isUrlAfterScheme(c.value, c.keyText),
    'documentation',
    'a URL: the key was its scheme (salt://, file://) and the value its path',
  ],
  [
    (c) => HOST_BEFORE.test(c.keyText) && PORT_AND_REST.test(c.value),
    'documentation',
    'a port after a host name (host:80)',
  ],
  [(c) => OBJECT_IDENTIFIER.test(c.value), 'public', 'an object identifier (OID, dotted numbers)'],
  [
    (c) => KUBERNETES_SYSTEM_USER_BEFORE.test(c.keyText) && KUBERNETES_SYSTEM_NAME.test(c.value),
    'documentation',
    "a Kubernetes identity's name after system:, not a user and password",
  ],
  [
    (c) => MARKDOWN_SYNTAX.test(c.value) || RELATIVE_LINK.test(c.value),
    'documentation',
    "Markdown: a link's text and target, a relative link, a footnote or a handle",
  ],
  [(c) => PASS_AS_VERB.test(c.keyText), 'documentation', '"pass" is a verb here (the tests pass:)'],
  [
    (c) => isEmphasisOpened(c.value, c.after),
    'documentation',
    'Markdown strong emphasis opened before the word and closed later on its line',
  ],
  [
    (c) => COLON_LABEL.test(c.value) || OPTION_WORD.test(c.value),
    'documentation',
    "a label ending in a colon, or the option's own name, where a value was expected",
  ],
  [(c) => COMMAND_LINE.test(c.value), 'documentation', "a command line (a tool's name, then its arguments)"],
  [(c) => HTTP_VERSION.test(c.value), 'documentation', "an HTTP request line's protocol version (HTTP/1.1)"],
  [
    (c) => CALL_AFTER_CONCATENATION.test(c.value),
    'reference',
    'code: a function call joined to the string (an ARM concat of listKeys(…))',
  ],
  [
    (c) => c.keyText.endsWith('`') && c.after.startsWith('`') && BACKTICK_COMMAND.test(c.value),
    'reference',
    'a command in backticks (Ruby, shell): the value is its output',
  ],
  [
    (c) => FILE_BEFORE_COLON.test(c.keyText) && MEDIA_TYPE_WORDS.test(c.value),
    'documentation',
    "a file and its type (script.sh:x-shellscript), not a user's password",
  ],
  [(c) => BRACED_PLACEHOLDERS.test(c.value), 'placeholder', '{name} placeholders joined by marks'],
  [(c) => BRACED_WORDS.test(c.value), 'placeholder', 'words in braces where the value goes ({token over here})'],
  [
    (c) => isJsonWithoutLiteral(c.value),
    'documentation',
    'a JSON object whose fields hold settings, placeholders or references, no literal',
  ],
  [(c) => SECRET_PATH.test(c.value), 'reference', 'a secret-manager or Vault path (lower-case path segments)'],
  [(c) => SAID_TO_BE_AN_ID.test(c.after), 'documentation', 'the sentence says the value is an identifier'],
  [(c) => c.after.charCodeAt(0) === 40 && CALLEE.test(c.value), 'reference', 'code: a function call'],
  [(c) => MEMBER_EXPRESSION.test(c.value), 'reference', 'code: a member expression'],
  [(c) => PUBLIC_VALUE.test(c.value), 'public', 'a publishable token, public key or certificate'],
  [(c) => isJwtHeaderAlone(c.value), 'public', "a JWT's header alone (algorithm and key id, no claim)"],
  [
    (c) => isEcPublicPoint(c.value),
    'public',
    'an uncompressed elliptic-curve public point (a Web Push or VAPID public key)',
  ],
];

/** The evidence that needs the key's name (read back from the text before the value), in order, after VALUE_CHECKS. */
const KEY_CHECKS: readonly Check[] = [
  [(c) => PUBLIC_KEY_NAME.test(c.key), 'public', 'the key names public material or an identifier'],
  [(c) => IDENTITY_KEY.test(c.plain), 'documentation', 'the key names a user, account or address, not a secret'],
  [
    (c) => DATABASE_KEY.test(c.plain) && !SECRET_FIELD.test(c.key),
    'documentation',
    'the key names a database, a schema or a bucket, not a secret',
  ],
  [
    (c) => SETTING_KEY.test(c.plain) && !SESSION_ID_KEY.test(c.plain),
    'documentation',
    'the key names a setting (a path, a version, a timeout), not a secret',
  ],
  [(c) => c.key === '' && TYPE_NAME.test(c.value), 'documentation', "a type's name as an argument (ConfigMap)"],
  secretObjectName,
  [
    (c) => MEANINGFUL_WORD.test(c.value),
    'documentation',
    'a word with a meaning (a permission level, a cleared cookie)',
  ],
  [(c) => PLAIN_URL.test(c.value) || PLAIN_URL_OR_SCHEME.test(c.value), 'documentation', 'a URL without credentials'],
  [(c) => PORT_MAPPING.test(c.value), 'documentation', 'a port mapping'],
  [(c) => isFilledShape(c.value), 'placeholder', 'one or two characters repeated in a token shape'],
  [
    (c) => !c.ruledOut.placeholder && isPlaceholder(c.value),
    'placeholder',
    'a placeholder, example or obviously made-up value',
  ],
  [(c) => isProse(c.value), 'documentation', 'prose'],
  [(c) => NON_LATIN_WORD.test(c.value), 'documentation', 'a word in a script other than Latin (prose)'],
  [(c) => WRAPPED_PLACEHOLDER.test(c.value), 'placeholder', "a command-line tool's placeholder (^X^, %X%)"],
  [(c) => CONSTANT_NAME.test(c.value), 'placeholder', "a constant's name (capitals, up to two digits)"],
  [(c) => PREFIX_AND_WORD.test(c.value), 'placeholder', 'a key prefix followed by a plain word'],
  [
    (c) => WORDS.placeholder.has(PREFIX_AND_PLACEHOLDER.exec(c.value)?.[1] ?? ''),
    'placeholder',
    'a short prefix and a placeholder word (tkey_foo)',
  ],
  [(c) => isRepeatedWord(c.value), 'placeholder', 'a word written twice or more'],
  [(c) => isWordTwiceAroundMark(c.value), 'placeholder', 'a word written twice around a mark'],
  [(c) => isDigitCount(c.value), 'placeholder', 'digits counting up or down'],
  [(c) => isWordsAndCounts(c.value), 'placeholder', 'placeholder words and counting digits run together'],
  [(c) => isHexWords(c.value), 'placeholder', 'hex spelled from words (deadbeef)'],
  [(c) => isPhraseSlug(c.value), 'documentation', 'a phrase written as a slug'],
  [(c) => !c.inUrl && namesItsKey(c.value, c.key), 'placeholder', 'the value names its own key'],
  [
    (c) => namesItsPairName(c),
    'placeholder',
    "the value names its name/value pair's name (GITHUB_OAUTH_SECRET: github)",
  ],
  [
    (c) => !c.inUrl && labelledByItsKey(c.value, c.key, c.keyText),
    'placeholder',
    'the value is labelled with its own key (IDToken.1234…, water_softener_salt)',
  ],
  [
    (c) => isMadeOfFiller(c.value),
    'placeholder',
    'made of words that describe a value and typed runs (somerandomstring1234…)',
  ],
  [
    (c) => !c.inUrl && isLabelFromItsKey(c.value, c.key),
    'placeholder',
    'a label spelled from its own key (RefreshError under RefreshToken, tk-real under token)',
  ],
  [(c) => isCountedLabel(c.value, c.keyText), 'placeholder', "a test's label with a counter (words, a number)"],
  [(c) => isRowAndDigits(c.value), 'placeholder', 'keys typed along a row, then digits'],
  [(c) => !c.inUrl && isKeyInitialsLabel(c.value, c.key), 'placeholder', "a label made of its key's initials"],
  [
    (c) => LETTER_AND_COUNTER.test(c.value),
    'placeholder',
    "a letter or two and a counter: a test's label, not a chosen password",
  ],
  [
    (c) => isSentenceAboutItself(c.value),
    'placeholder',
    'a sentence about the value, naming its kind (AVeryStrongPassword…)',
  ],
  [(c) => CAPITALS_TEST_LABEL.test(c.value), 'placeholder', 'a name in capitals that says it is a test value'],
  [(c) => !c.inUrl && isKeyInLeetspeak(c.value, c.key), 'placeholder', 'the value is its own key in leetspeak'],
  [
    (c) => ERROR_LABEL.test(c.value) && ERROR_CHAIN_AFTER.test(c.after),
    'documentation',
    "a wrapped error message's label (failed to get token: oauth2: …)",
  ],
  [
    (c) => equalsTheUserName(c.value, c.keyText) || equalsTheUserName(c.value, c.after),
    'placeholder',
    'the user name written beside it',
  ],
  [
    (c) => spelledFromItsPlace(c.value, c.key, c.path),
    'placeholder',
    'a name spelled from the words of its key and path',
  ],
  [(c) => madeUpBeforeEscape(c), 'placeholder', "a made-up value, ended by its string literal's escape (\\n)"],
  [(c) => echoesItsLine(c.value, c.keyText), 'placeholder', 'repeats its own line (the user name, the key)'],
  [(c) => namesTheProduct(c.value, c.path), 'placeholder', "the product's own name, as the item's path spells it"],
  [
    (c) => c.item && /^[a-z]{4,20}$/.test(c.value) && imageWords(c.item.text).has(c.value),
    'placeholder',
    "the product's own name, as the images the file runs spell it",
  ],
  [
    (c) => productAndWords(c.value, c.path),
    'placeholder',
    "the product's own name joined to made-up words (name@secured)",
  ],
  [
    (c) => productRunTogether(c.value, c.path),
    'placeholder',
    "the product's own name run together with a placeholder word",
  ],
  [(c) => isFewKeys(c.value), 'placeholder', 'typed with a few keys: too few different letters for its length'],
  [(c) => isWrappedLabel(c.value), 'placeholder', 'a label set off by runs of the same mark on both sides'],
  [(c) => decodesToPlaceholder(c.value, c.path), 'placeholder', 'base64 of a placeholder or reference'],
  [
    (c) => decodesToPlaceholderPair(c.value),
    'placeholder',
    'base64 of user:password whose password is a placeholder or the user name',
  ],
  [
    (c) => isSpelledOutPlaceholder(c.value),
    'placeholder',
    'a placeholder word spelled out with a mark between its letters',
  ],
  [(c) => ONE_KEYBOARD_ROW.test(c.value), 'placeholder', "letters of one keyboard row (a typist's filler)"],
  [(c) => isAlphabetRun(c.value), 'placeholder', 'letters in alphabet order (abcd, abc123)'],
  [
    (c) => isPlaceholderWordInBase64(c.value),
    'placeholder',
    'a placeholder word repeated in the shape of base64 (LS0exampleexample=)',
  ],
  [
    (c) => FLAG_BEFORE.test(c.keyText) && SETTING_NAME.test(c.value) && ARGUMENT_AFTER.test(c.after),
    'secret-name',
    "a setting's name after a flag, its value the next argument (--secret name value)",
  ],
  afterAuthScheme,
  [(c) => isNumberedLine(c.value, c.after), 'placeholder', "a sample's numbered line (line1, then line2)"],
  // A label or message in a translation catalogue: the file maps keys to what a user interface shows.
  [
    (c) => c.item && isUiString(c.value) && isTranslationCatalogue(c.item.text),
    'documentation',
    "a user interface's string in a translation catalogue (a locale file)",
  ],
  // An example in an API description is sample data; a value shaped like a generated credential is still masked.
  [
    (c) =>
      c.item && !(c.value.length >= 16 && charClassCount(c.value) >= 3) && underApiExample(c.item.text, c.item.start),
    'documentation',
    "an example in an API description (under OpenAPI's example:)",
  ],
];

/**
 * What `raw` is, given the text before it in the match (`keyText`, the key and separator, or the
 * words before a value in prose) and the item's path, if any. Cheap checks first; only a literal is masked.
 */
export function classifyValue(
  raw: string,
  keyText = '',
  path?: string,
  /** What the rule's validators already ruled out for this value (`not-placeholder`, `not-reference`): not judged twice. */
  ruledOut: { placeholder?: boolean; reference?: boolean } = {},
  /** The text right after the value in the item, up to a line or so: a call's `(`, a template's closing `}}`. */
  after = '',
  /** The whole item and where the value starts in it: read only for the enclosing keys of an API description. */
  item?: { text: string; start: number },
): ValueVerdict {
  // A value inside escaped quotes (`"\"delete me\""` in a HAR), or closing a Markdown code span and its sentence (`…DDDD`.`), is judged without them.
  const value = raw
    .trim()
    .replace(/`\)?[.,;:]?$/, '')
    .replace(/^\\?["'`]|\\?["'`]$/g, '')
    .replace(MARKDOWN_EMPHASIS, '$1')
    // A Markdown link's closing parenthesis after a query value (`(https://…?password=password)`).
    .replace(/^([^(]*)\)$/, '$1');
  const c: Candidate = { raw, value, keyText, path, ruledOut, after, item, inUrl: false, key: '', plain: '' };
  const byValue = decide(VALUE_CHECKS, c);
  if (byValue !== undefined) return byValue;
  c.inUrl = IN_URL_AUTHORITY.test(keyText);
  c.key = c.inUrl ? '' : keyName(keyText);
  c.plain = plainKey(c.key);
  const byKey = decide(KEY_CHECKS, c);
  if (byKey !== undefined) return byKey;
  // Most values a rule accepts are literals, and only kept values' evidence is stored: built when read.
  return {
    kind: 'literal',
    get evidence() {
      const bits = shannonEntropy(value);
      return `a literal: ${value.length} characters, ${charClassCount(value)} character classes, ${bits.toFixed(1)} bits/character`;
    },
  };
}

/**
 * Runs every check once, so that the server's first requests do not pay for compiling the classifier's
 * regexes (createRedactor's `warm`, beside warmRegexes.ts).
 */
export function warmClassifier(): void {
  for (const value of ['Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd', 'pg-credentials', 'ZGVtbw==', 'a/b', 'x:y/z', 'http://h:1']) {
    classifyValue(value, '  existingSecret: "', 'charts/app/values.yaml');
  }
}
