// Pure parsing of stack traces in six shapes (Node, Python, Java, Go, Rust,
// .NET). Frames come out deepest first, the order a reader wants them.

export type TraceLanguage = 'node' | 'python' | 'java' | 'go' | 'rust' | 'dotnet';

export interface TraceFrame {
  language: TraceLanguage;
  /** The file as the trace wrote it (for Java: `com/example/Foo.java` from the package). */
  file: string;
  line: number;
  column?: number | undefined;
  fn?: string | undefined;
  /** Java only: the bare file name, for searching source roots. */
  fileName?: string | undefined;
}

const NODE =
  /^\s*at (?:(?:async )?(.+?) \()?(?:file:\/\/)?((?:node:)?(?:[A-Za-z]:)?[^():\s][^():]*?):(\d+):(\d+)\)?\s*$/;
const PYTHON = /^\s*File "(.+?)", line (\d+)(?:, in (.+))?\s*$/;
const JAVA = /^\s*at ((?:[\w$]+\.)+)([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)\s*$/;
const GO_FILE = /^\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?\s*$/;
const RUST_AT = /^\s+at (.+?\.rs):(\d+)(?::(\d+))?\s*$/;
const RUST_PANIC = /panicked at (?:'.*?', )?([^\s:']+\.rs):(\d+):(\d+)/;
const RUST_FN = /^\s*\d+: (.+?)\s*$/;
const DOTNET = /^\s*at (.+?) in (.+?):line (\d+)\s*$/;

const MARKERS = [
  /^\s*Traceback \(most recent call last\):/m,
  /^panic: /m,
  /^goroutine \d+ \[/m,
  /Exception in thread "/,
  /thread '.*' panicked at/,
  /^error\[E\d{4}\]/m,
  /^\s*(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: /m,
  /^\s*at [\w$.<>]+\([\w$]+\.java:\d+\)/m,
  /^\s*at .+ in .+:line \d+/m,
  /^\s*at (?:.+ \()?(?:file:\/\/)?[^()\s]+:\d+:\d+\)?\s*$/m,
  /^\s*File ".+", line \d+/m,
];

/** Whether text holds a stack trace or error output (the pipeline's `auto` mode picks debug on it). */
export function looksLikeStackTrace(text: string): boolean {
  return MARKERS.some((marker) => marker.test(text));
}

function pythonTrace(lines: readonly string[]): TraceFrame[] {
  const frames: TraceFrame[] = [];
  for (const line of lines) {
    const m = PYTHON.exec(line);
    if (m?.[1]) frames.push({ language: 'python', file: m[1], line: Number(m[2]), fn: m[3] });
  }
  // "most recent call last": the deepest frame is printed last.
  return frames.reverse();
}

export function parseTrace(text: string): TraceFrame[] {
  const lines = text.split(/\r?\n/);
  const frames: TraceFrame[] = [...pythonTrace(lines)];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (PYTHON.test(line)) continue;
    let m = DOTNET.exec(line);
    if (m?.[2]) {
      frames.push({ language: 'dotnet', file: m[2].trim(), line: Number(m[3]), fn: m[1] });
      continue;
    }
    m = JAVA.exec(line);
    if (m?.[3] && m[1]) {
      const pkg = m[1].slice(0, -1).split('.');
      pkg.pop(); // the class name
      const dir = pkg.join('/');
      frames.push({
        language: 'java',
        file: dir ? `${dir}/${m[3]}` : m[3],
        fileName: m[3],
        line: Number(m[4]),
        fn: `${m[1]}${m[2]}`,
      });
      continue;
    }
    m = GO_FILE.exec(line);
    if (m?.[1]) {
      const fn = (lines[i - 1] ?? '').trim().replace(/\(.*\)$/, '');
      frames.push({ language: 'go', file: m[1], line: Number(m[2]), fn: fn || undefined });
      continue;
    }
    m = RUST_AT.exec(line);
    if (m?.[1]) {
      const fn = RUST_FN.exec(lines[i - 1] ?? '')?.[1];
      frames.push({ language: 'rust', file: m[1], line: Number(m[2]), column: m[3] ? Number(m[3]) : undefined, fn });
      continue;
    }
    m = RUST_PANIC.exec(line);
    if (m?.[1]) {
      frames.push({ language: 'rust', file: m[1], line: Number(m[2]), column: Number(m[3]), fn: 'panic' });
      continue;
    }
    m = NODE.exec(line);
    if (m?.[2]) {
      frames.push({ language: 'node', file: m[2], line: Number(m[3]), column: Number(m[4]), fn: m[1] });
    }
  }
  return dedupe(frames);
}

function dedupe(frames: TraceFrame[]): TraceFrame[] {
  const seen = new Set<string>();
  return frames.filter((frame) => {
    const key = `${frame.file.replace(/^\.\//, '')}:${frame.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const LIBRARY = [
  /(^|[/\\])node_modules[/\\]/,
  /^node:/,
  /^internal[/\\]/,
  /(^|[/\\])(site|dist)-packages[/\\]/,
  /^<frozen /,
  /^\/usr\/(local\/)?lib\//,
  /[/\\]lib[/\\]python\d/,
  /^\/rustc\//,
  /[/\\]\.cargo[/\\]registry[/\\]/,
  /[/\\]\.rustup[/\\]/,
  /[/\\]go[/\\]pkg[/\\]mod[/\\]/,
  /^\/usr\/local\/go\/src\//,
  /^runtime\//,
];

/** Frames in dependencies and runtimes: named in the summary, never read. */
export function isLibraryFrame(frame: TraceFrame): boolean {
  if (LIBRARY.some((pattern) => pattern.test(frame.file))) return true;
  if (frame.language === 'java')
    return /^(java|javax|jdk|sun|com\/sun|kotlin|scala|org\/junit|org\/springframework)\//.test(frame.file);
  if (frame.language === 'dotnet') return /^(System|Microsoft)\./.test(frame.fn ?? '');
  return false;
}
