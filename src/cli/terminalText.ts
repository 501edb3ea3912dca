// What the commands print is made safe for a terminal. File names, model names,
// questions, replies and error messages can hold an attacker's bytes (a file
// named with an escape sequence that rewrites the screen or sets the window
// title, a right-to-left override that shows `exe.txt` as `txt.exe`). main.ts
// passes every command's output through safeText, except `redact`'s standard
// output: a filter must give back the bytes it was given, masks aside.
// JSON output goes through safeJson first, which writes the same characters as
// \u escapes: the data stays whole and the terminal sees none of them.

/**
 * C0 controls but newline and tab, DEL, C1 controls (0x9b is a one-byte CSI),
 * the bidirectional overrides and isolates, and the line and paragraph separators.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Keeps newlines and tabs, shows every other control character as U+FFFD. */
export function safeText(text: string): string {
  return text.replace(UNSAFE, '\uFFFD');
}

/** JSON.stringify, with the characters safeText would replace written as \u escapes (JSON already does C0). */
export function safeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
