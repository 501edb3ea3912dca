// Decides, from a rule's regex source, which literal strings every match
// starts with (`password`, `api`, `ghp_`…). Such a rule need not search its
// text position by position: the keyword pass finds where those strings
// occur, and the regex is tried (sticky) only there, in order — the same
// matches as a search, because a match can start nowhere else. Conservative:
// whatever it cannot read ends the literal there (a shorter literal is still
// true), and a pattern it cannot judge at all gets no starts.

/** More alternatives than this: stop extending them (the prefixes found so far stay true). */
const MAX_ALTERNATIVES = 64;
/** More than this: drop the last step altogether (its left side's prefixes stay true). */
const HARD_MAX_ALTERNATIVES = 4096;
/** A character class of at most this many characters is read as alternatives. */
const MAX_CLASS_CHARS = 8;
/** Shorter literals would be tried at too many places to pay off. */
const MIN_START_LENGTH = 2;

interface Prefix {
  text: string;
  /** Nothing unread since: what follows in the pattern may extend it. */
  open: boolean;
}

class Unreadable extends Error {}

/** Escapes that stand for one literal character (punctuation escaped for its own sake). */
const LITERAL_ESCAPE = /^[\\/.\-^$*+?()[\]{}|"'`:=,;!<>@#%&~ ]$/;

/** Without duplicates; past MAX_ALTERNATIVES, all closed (they stop growing, and stay true). */
function normalize(prefixes: Prefix[]): Prefix[] {
  const seen = new Map<string, Prefix>();
  for (const p of prefixes) seen.set(`${p.open ? 1 : 0}${p.text}`, p);
  const out = [...seen.values()];
  return out.length > MAX_ALTERNATIVES ? closeAll(out) : out;
}

function concat(left: Prefix[], right: Prefix[]): Prefix[] {
  const out: Prefix[] = [];
  for (const l of left) {
    if (!l.open) out.push(l);
    else for (const r of right) out.push({ text: l.text + r.text, open: r.open });
  }
  if (out.length > HARD_MAX_ALTERNATIVES) return closeAll(left);
  return out.length > MAX_ALTERNATIVES ? closeAll(out) : out;
}

function closeAll(prefixes: Prefix[]): Prefix[] {
  const seen = new Set<string>();
  const out: Prefix[] = [];
  for (const p of prefixes) {
    if (seen.has(p.text)) continue;
    seen.add(p.text);
    out.push({ text: p.text, open: false });
  }
  return out;
}

class Reader {
  i = 0;
  constructor(private readonly source: string) {}

  /** An alternation up to `)` or the end: the prefixes of all its branches. */
  alternation(): Prefix[] {
    const branches: Prefix[] = [];
    for (;;) {
      branches.push(...this.sequence());
      if (this.source[this.i] !== '|') return branches;
      this.i++;
    }
  }

  private sequence(): Prefix[] {
    let current: Prefix[] = [{ text: '', open: true }];
    while (this.i < this.source.length && this.source[this.i] !== '|' && this.source[this.i] !== ')') {
      const atom = this.atom();
      const quantifier = this.quantifier();
      if (atom === 'zero-width') continue;
      if (quantifier === 'one') current = concat(current, atom);
      else if (quantifier === 'optional') current = [...current, ...concat(current, atom)];
      else if (quantifier === 'optional-repeat') current = closeAll([...current, ...concat(current, atom)]);
      else current = closeAll(concat(current, atom));
      current = normalize(current);
    }
    return current;
  }

  /** One atom: its possible literal texts, `zero-width` for assertions, or no literal (closed ''). */
  private atom(): Prefix[] | 'zero-width' {
    const s = this.source;
    const c = s[this.i]!;
    const unknown: Prefix[] = [{ text: '', open: false }];
    if (c === '^' || c === '$') {
      this.i++;
      return 'zero-width';
    }
    if (c === '(') {
      if (s.startsWith('(?=', this.i) || s.startsWith('(?!', this.i)) {
        this.i += 3;
        this.alternation();
        this.expect(')');
        return 'zero-width';
      }
      if (s.startsWith('(?<=', this.i) || s.startsWith('(?<!', this.i)) {
        this.i += 4;
        this.alternation();
        this.expect(')');
        return 'zero-width';
      }
      if (s.startsWith('(?:', this.i)) this.i += 3;
      else if (s.startsWith('(?<', this.i)) {
        const close = s.indexOf('>', this.i);
        if (close === -1) throw new Unreadable();
        this.i = close + 1;
      } else if (s.startsWith('(?', this.i)) throw new Unreadable();
      else this.i++;
      const inner = this.alternation();
      this.expect(')');
      return inner;
    }
    if (c === '[') return this.characterClass();
    if (c === '\\') {
      const next = s[this.i + 1];
      if (next === undefined) throw new Unreadable();
      this.i += 2;
      if (next === 'b' || next === 'B') return 'zero-width';
      if (LITERAL_ESCAPE.test(next)) return [{ text: next, open: true }];
      // \k<name>, \u{…}, \x…, \p{…}: skip their argument; all stand for no literal we read.
      if (next === 'k' || next === 'p' || next === 'P') this.skipBraced();
      return unknown;
    }
    if (c === '.') {
      this.i++;
      return unknown;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{' || c === ']' || c === '}') throw new Unreadable();
    this.i++;
    return c.charCodeAt(0) < 128 && c.charCodeAt(0) >= 32 ? [{ text: c, open: true }] : unknown;
  }

  private skipBraced(): void {
    const open = this.source[this.i];
    if (open !== '<' && open !== '{') return;
    const close = this.source.indexOf(open === '<' ? '>' : '}', this.i);
    if (close === -1) throw new Unreadable();
    this.i = close + 1;
  }

  /** `[abc]`, `[_.-]`: its characters as alternatives when few and literal, else no literal. */
  private characterClass(): Prefix[] {
    const s = this.source;
    let i = this.i + 1;
    const negated = s[i] === '^';
    if (negated) i++;
    const chars: string[] = [];
    let readable = !negated;
    // In JavaScript `[]` is an empty class and `]` never needs escaping to be first: the first `]` closes.
    for (; i < s.length && s[i] !== ']'; i++) {
      let ch = s[i]!;
      if (ch === '\\') {
        const next = s[i + 1] ?? '';
        i++;
        // Not a plain character, or the start of a range (`\.-z`): not read.
        if (!LITERAL_ESCAPE.test(next) || (s[i + 1] === '-' && s[i + 2] !== ']')) readable = false;
        ch = next;
      } else if (s[i + 1] === '-' && s[i + 2] !== undefined && s[i + 2] !== ']') {
        // A range: read its characters when it is short.
        const to = s[i + 2]!;
        if (to === '\\') {
          // An escaped range end (`\x00-\x1f`, `a-\]`): not read; skip the escape as a whole.
          readable = false;
          i += 3;
          continue;
        }
        for (let code = ch.charCodeAt(0); code <= to.charCodeAt(0); code++) chars.push(String.fromCharCode(code));
        i += 2;
        continue;
      }
      chars.push(ch);
    }
    if (s[i] !== ']') throw new Unreadable();
    this.i = i + 1;
    const printable = chars.every((ch) => ch.charCodeAt(0) >= 32 && ch.charCodeAt(0) < 128);
    if (!readable || !printable || chars.length === 0 || chars.length > MAX_CLASS_CHARS) {
      return [{ text: '', open: false }];
    }
    return chars.map((text) => ({ text, open: true }));
  }

  private quantifier(): 'one' | 'optional' | 'optional-repeat' | 'repeat' {
    const s = this.source;
    const c = s[this.i];
    let kind: 'one' | 'optional' | 'optional-repeat' | 'repeat' = 'one';
    if (c === '?') {
      kind = 'optional';
      this.i++;
    } else if (c === '*') {
      kind = 'optional-repeat';
      this.i++;
    } else if (c === '+') {
      kind = 'repeat';
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (!m) throw new Unreadable();
      this.i += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (min === 0) kind = max === 1 ? 'optional' : 'optional-repeat';
      else kind = min === 1 && max === 1 ? 'one' : 'repeat';
    } else {
      return 'one';
    }
    if (s[this.i] === '?') this.i++;
    return kind;
  }

  private expect(char: string): void {
    if (this.source[this.i] !== char) throw new Unreadable();
    this.i++;
  }

  atEnd(): boolean {
    return this.i === this.source.length;
  }
}

/**
 * Lower-cased literals of which every match of `source` (with `flags`) starts
 * with one, none a prefix of another; undefined when that cannot be said
 * (or the literals would be too short to help).
 */
export function matchStarts(source: string, flags: string): string[] | undefined {
  // With both i and u, case folding maps some non-ASCII characters onto ASCII letters.
  if (flags.includes('i') && flags.includes('u')) return undefined;
  let prefixes: Prefix[];
  try {
    const reader = new Reader(source);
    prefixes = reader.alternation();
    if (!reader.atEnd()) return undefined;
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    throw error;
  }
  const texts = [...new Set(prefixes.map((p) => p.text.toLowerCase()))].sort((a, b) => a.length - b.length);
  if (texts.some((t) => t.length < MIN_START_LENGTH)) return undefined;
  const minimal: string[] = [];
  for (const text of texts) if (!minimal.some((shorter) => text.startsWith(shorter))) minimal.push(text);
  return minimal;
}

/**
 * The capturing groups (by number and by name) that no lookaround encloses: what they capture is
 * part of the match's own text, so it can be placed by searching that text.
 */
export function consumedGroups(source: string): Set<number | string> {
  const consumed = new Set<number | string>();
  const lookaround: boolean[] = [];
  let number = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
    } else if (c === '(') {
      const inside = lookaround.length > 0 && lookaround.at(-1)!;
      if (source.startsWith('(?=', i) || source.startsWith('(?!', i)) lookaround.push(true);
      else if (source.startsWith('(?<=', i) || source.startsWith('(?<!', i)) lookaround.push(true);
      else if (source.startsWith('(?:', i)) lookaround.push(inside);
      else {
        number++;
        const name = source.startsWith('(?<', i) ? /^\(\?<([A-Za-z_$][\w$]*)>/.exec(source.slice(i))?.[1] : undefined;
        if (!inside) {
          consumed.add(number);
          if (name) consumed.add(name);
        }
        lookaround.push(inside);
      }
    } else if (c === ')') {
      lookaround.pop();
    }
  }
  return consumed;
}
