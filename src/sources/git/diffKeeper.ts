// Reading `git diff` as it streams, with bounded memory: each file's part is
// kept up to a limit (the rest of a huge file's changes is passed over until
// the next file starts, with a note where it was cut), everything up to a
// total, and git is stopped once a read limit is passed. A 300 MB generated
// file or log changed beside a small edit then costs its first lines, and the
// small edit after it in git's order still arrives.

import { formatBytes, type OutputKeeper } from './gitRunner.ts';

export interface DiffLimits {
  /** Bytes of one file's diff kept. */
  fileBytes: number;
  /** Bytes kept in all (a few notes may pass it). */
  keepBytes: number;
  /** Bytes read at most: past it git is stopped and the files after are not seen. */
  readBytes: number;
}

const FILE_START = Buffer.from('diff --git ');
const NEXT_FILE = Buffer.from('\ndiff --git ');
const NEWLINE = 0x0a;
/**
 * A line begun at the end of a chunk waits for the next one (it may start a
 * file); one longer than this is content (paths are far shorter) and is dropped.
 */
const CARRY_MAX = 64 * 1024;

export function diffKeeper(limits: DiffLimits): OutputKeeper {
  const note = Buffer.from(`… the rest of this file's changes was not read (over ${formatBytes(limits.fileBytes)})\n`);
  const kept: Buffer[] = [];
  let keptTotal = 0;
  let fileKept = 0;
  /** The rest of the current file is passed over. */
  let skipping = false;
  /** Inside a line too long to carry: dropped up to its end. */
  let midLine = false;
  let carry: Buffer | undefined;
  let read = 0;
  let cut = false;

  const keep = (part: Buffer) => {
    kept.push(part);
    keptTotal += part.length;
    fileKept += part.length;
  };
  /** The current file keeps no more: its whole lines that fit, then the note. */
  const stopFile = (segment: Buffer, room: number) => {
    const fit = room > 0 ? segment.lastIndexOf(NEWLINE, room - 1) + 1 : 0;
    if (fit > 0) keep(segment.subarray(0, fit));
    keep(note);
    skipping = true;
    cut = true;
  };
  /** Whole lines, starting at a line start: split where files start, kept within the limits. */
  const take = (data: Buffer) => {
    let at = 0;
    while (at < data.length) {
      if (data.subarray(at, at + FILE_START.length).equals(FILE_START)) {
        fileKept = 0;
        skipping = false;
      }
      const next = data.indexOf(NEXT_FILE, at);
      const end = next === -1 ? data.length : next + 1;
      if (!skipping) {
        const segment = data.subarray(at, end);
        const room = Math.min(limits.fileBytes - fileKept, limits.keepBytes - keptTotal);
        if (segment.length <= room) keep(segment);
        else stopFile(segment, room);
      }
      at = end;
    }
  };

  return {
    push(chunk) {
      read += chunk.length;
      let data = chunk;
      if (midLine) {
        const end = data.indexOf(NEWLINE);
        if (end === -1) return read < limits.readBytes;
        data = data.subarray(end + 1);
        midLine = false;
      }
      if (carry) {
        data = Buffer.concat([carry, data]);
        carry = undefined;
      }
      const lastLine = data.lastIndexOf(NEWLINE) + 1;
      take(data.subarray(0, lastLine));
      const rest = data.subarray(lastLine);
      if (rest.length > CARRY_MAX) {
        if (!skipping) stopFile(rest, 0);
        midLine = true;
      } else if (rest.length > 0) carry = rest;
      return keptTotal < limits.keepBytes && read < limits.readBytes;
    },
    result(stopped) {
      if (carry && !stopped) take(carry);
      return { text: Buffer.concat(kept).toString('utf8'), cut: cut || stopped };
    },
  };
}
