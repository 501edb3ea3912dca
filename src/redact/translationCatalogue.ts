// What kind of file a value sits in, judged from the file's own lines: a
// translation catalogue (a locale file) maps keys to the strings a user
// interface shows, in one language or many (`'password' => 'Salasana'`,
// `"New Password": "Nueva contraseña"`). There a key that names a secret holds
// the word for it, not the secret: a lone capitalised word is a label
// (`Geheim`, `Heslo`), where in a configuration file it would be a chosen
// password. The file's nature decides, not the word, so no list of languages
// or words is needed.

/** Lines read to judge a file: enough pairs to see what the file is; a catalogue says so from its start. */
const LINES_READ = 400;
/** Longer lines are not read (a minified file, a HAR): the pair pattern below stays linear per line. */
const LINE_MAX = 400;
/**
 * A catalogue shows at least this many pairs, and at least this share of them hold phrases; a short one
 * (Laravel's `passwords.php` has five messages) shows a larger share.
 */
const MIN_PAIRS = 4;
const SHORT_FILE_PAIRS = 8;
const MIN_PHRASE_SHARE = 0.5;
const MIN_PHRASE_SHARE_SHORT = 0.8;

/** A key, quoted or not, then `:`, `=` or `=>`, then a quoted string: one pair per line, as catalogues are written. */
const PAIR_LINE = /^[ \t]*["']?([\p{L}\p{N}_ .-]{1,80})["']?[ \t]*(?:=>|:|=)[ \t]*(["'])(.*)\2[ \t]*,?[ \t]*$/u;

/**
 * A string a user interface shows: words of any script, marks between and after them, numbers of up to
 * three digits as words of their own (`8 caractères`), message placeholders (`:count`, `{name}`,
 * `%s`) and an icon's symbol (`… kliknutím na 🛈`). No word mixes letters and digits (`hunter2`), so a chosen password made of words and digits is
 * not one.
 */
// A word's own marks (`'`, `’`) are not also closing marks, so that a run of them is read one way only.
const UI_STRING =
  /^[¿¡(«"'„“‘]?\p{L}[\p{L}\p{M}'’\\-]*[.,;:!?)»"”…]*(?:[ \t\u00a0\u202f]+(?:[¿¡(«"'„“‘]?\p{L}[\p{L}\p{M}'’\\-]*|\d{1,3}|:[a-z_]+|\{[a-z_]+\}|%[sd]|\p{So})[.,;:!?)»"”…]*)*[ \t\u00a0\u202f]*[.!?…]?$/u;
/** A phrase: two words of letters at least. */
const PHRASE = /\p{L}{2,}[^\s]*[ \t]+[^\s]*\p{L}{2,}/u;

let lastText: string | undefined;
let lastVerdict = false;

/**
 * Whether `text` is a translation catalogue: of its first lines that pair a key with a quoted string, at
 * least four, and at least half of them hold a phrase (four in five in a file of fewer than eight).
 * Judged once per item (the last answer is kept: every value of an item asks about the same text).
 */
export function isTranslationCatalogue(text: string): boolean {
  if (text === lastText) return lastVerdict;
  let pairs = 0;
  let phrases = 0;
  let at = 0;
  for (let line = 0; line < LINES_READ && at < text.length; line++) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    if (end - at <= LINE_MAX) {
      const pair = PAIR_LINE.exec(text.slice(at, end));
      if (pair !== null) {
        pairs++;
        // i18next and gettext-style catalogues key each string by its source text (`"Backed Up": "Gesichert"`):
        // a phrase on either side says so, where most of a UI's translations are single words.
        // A configuration keyed by phrases holds hosts, addresses and numbers, not words.
        if (PHRASE.test(pair[3]!) || (PHRASE.test(pair[1]!) && isUiString(pair[3]!))) phrases++;
      }
    }
    at = end + 1;
  }
  lastText = text;
  lastVerdict =
    pairs >= MIN_PAIRS && phrases >= (pairs < SHORT_FILE_PAIRS ? MIN_PHRASE_SHARE_SHORT : MIN_PHRASE_SHARE) * pairs;
  return lastVerdict;
}

/** Whether `value` reads as a string a user interface shows (a label, a message), not a generated or chosen secret. */
export function isUiString(value: string): boolean {
  return value.length <= 400 && UI_STRING.test(value);
}
