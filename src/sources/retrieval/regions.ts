// From grep hits to the regions worth sending, ranked by how directly they
// answer the question: the definition of a named symbol (its whole block) over
// a mention (the line and its neighbours); the changed code over unchanged;
// tests when the question is about tests; manifest and task lines when it is
// about versions, builds or tests. Overlapping regions of a file are merged, so
// each line is sent once. Pure: the file's lines come in.

import type { Intent } from '../../shared/question.ts';
import { readsEnvironment } from './envReads.ts';
import { MANIFEST_FILES } from './manifestFiles.ts';
import type { GrepHit } from './search.ts';
import { sectionBlock } from './sections.ts';
import { statesVersionOf, VERSION_VALUE } from './versionMentions.ts';

export interface Region {
  /** 0-based, inclusive. */
  start: number;
  end: number;
  score: number;
  definition: boolean;
  /** Why it was chosen, from the names and terms matched (never its text): `defines parseConfig`. */
  why: string;
}

export interface FileRegions {
  rel: string;
  regions: Region[];
  /** The best region's score plus the file's own weight. */
  score: number;
}

export interface RankContext {
  /** The names searched for, last parts included (`create` for `OrderService.create`). */
  names: readonly string[];
  /** Qualified names as written (`OrderService.create`): a line holding one is a direct hit. */
  qualified: readonly string[];
  /** Quoted strings and error text: a line holding one is where the message comes from. */
  strings: readonly string[];
  intents: readonly Intent[];
  changed: ReadonlySet<string>;
  /** Files whose head is sent because their name is a word of the question, with why. */
  heads?: ReadonlyMap<string, string> | undefined;
  /** Lines of a head sent, where not `HEAD_LINES` (a role's file: a CI workflow whole, a changelog's newest entries). */
  headLines?: ReadonlyMap<string, number> | undefined;
  /** Where a head starts, where not at line 1: the first line matching the first pattern any line matches. */
  headFocus?: ReadonlyMap<string, readonly RegExp[]> | undefined;
  /**
   * Asked how other code relates to the name: `imports` (which files import or require it), `subtypes` (which
   * extend, implement or derive from it), or both. Those lines are the answer, the name's definition only its
   * signature.
   */
  relations?: Relations | undefined;
  /**
   * Packages and keys asked about in a version question (`expect-test`, `requires-python`): a manifest or lock
   * line naming one with a version beside it is the answer.
   */
  packages?: readonly string[] | undefined;
  /** The tools or runtimes a version question names (versionMentions.ts): a line stating their version answers. */
  subjects?: readonly string[] | undefined;
  /** Version numbers the question writes (`8.1.0`): a document's heading naming one opens what it says of it. */
  versions?: readonly string[] | undefined;
}

export interface Relations {
  imports: boolean;
  subtypes: boolean;
  /** Where objects of it are made (`new X(`, `X{`, `X::new(`, `X.new`, `X(` assigned). */
  constructs?: boolean | undefined;
  /** Where an error of it is handled (`except X`, `catch (X e)`, `rescue X`, `errors.Is(err, X)`). */
  handles?: boolean | undefined;
}

const ASKS_IMPORTS = /\b(?:imports?|imported|importing|requires?|required|includes?|included)\b/i;
const ASKS_SUBTYPES =
  /\b(?:extends?|extended|extending|implements?|implemented|implementing|implementations?|implementors?|implementers?|subclass\w*|subtypes?|inherits?|inheriting|derives?|derived|overrides?|overridden)\b/i;

const ASKS_CONSTRUCTS =
  /\b(?:creates?|created|creating|construct\w*|instantiat\w*|instances? of|initiali[sz]ed|new (?:\w+ )?(?:objects?|instances?))\b/i;

/** Catching words say it outright; "handle" only about an error ("where do we handle TimeoutError?"). */
const ASKS_CATCHES = /\b(?:catch(?:es|ing)?|caught|rescu(?:e|es|ed|ing))\b/i;
const ASKS_HANDLES = /\b(?:handl(?:e|es|ed|ing)|deal(?:s|t)? with|recover(?:s|ed|ing)? from)\b/i;
const ABOUT_ERRORS =
  /\b(?:errors?|exceptions?|raised?|rais(?:es|ing)|thrown?|throws?|panics?|failures?)\b|\b[A-Z]\w*(?:Error|Exception)\b|\bErr[A-Z]\w*/;

/**
 * The words that say a relation ("create new X objects", "which classes extend X", "who imports X"): grammar of
 * the question, never parts of a name said in prose (`newErrorWithCause` is not what "create new Error objects"
 * names).
 */
const RELATION_WORD =
  /^(?:imports?|imported|importing|requires?|required|includes?|included|extends?|extended|extending|implements?|implemented|implementing|implementations?|implementors?|implementers?|subclass\w*|subtypes?|inherits?|inheriting|derives?|derived|overrides?|overridden|creates?|created|creating|construct\w*|instantiat\w*|instances?|initiali[sz]ed|new|objects?|catch(?:es|ing)?|caught|rescu(?:e|es|ed|ing)|handl(?:e|es|ed|ing))$/;

/** Whether `word` (lower case) says the relation a question asks about, when it asks one. */
export function saysRelation(word: string): boolean {
  return RELATION_WORD.test(word);
}

/** Which relations of a name the question asks about, if any. */
export function askedRelations(text: string): Relations | undefined {
  const imports = ASKS_IMPORTS.test(text);
  const subtypes = ASKS_SUBTYPES.test(text);
  const constructs = ASKS_CONSTRUCTS.test(text);
  const handles = ASKS_CATCHES.test(text) || (ASKS_HANDLES.test(text) && ABOUT_ERRORS.test(text));
  return imports || subtypes || constructs || handles ? { imports, subtypes, constructs, handles } : undefined;
}

/**
 * Fixed strings that spell a relation to a name, searched apart from the name's own hits: a name used in
 * hundreds of lines has its few subclass, import or construction lines past the per-file cap of a whole-word
 * search. Ranked like any hit afterwards.
 */
export function relationPatterns(names: readonly string[], relations: Relations | undefined): string[] {
  if (!relations) return [];
  const out: string[] = [];
  for (const name of names.filter((n) => /^[A-Za-z_$][\w$]{2,}$/.test(n)).slice(0, 3)) {
    if (relations.subtypes)
      out.push(`extends ${name}`, `implements ${name}`, `(${name})`, `(${name},`, `: ${name}`, `< ${name}`);
    // Rust's `impl X for`, Scala's and Dart's `with X` (a trait or mixin taken in).
    if (relations.subtypes) out.push(`${name} for `, `${name}<'`, `with ${name}`);
    if (relations.imports) out.push(`import ${name}`, `/${name}'`, `/${name}"`, `.${name};`, `{ ${name} }`);
    // A module of the project, by its path: `from pkg.json import`, `'./json.js'`, `use crate::json`, `\Json;`.
    if (relations.imports) out.push(`.${name} import`, `/${name}.js'`, `/${name}.js"`, `/${name}.ts'`);
    if (relations.imports) out.push(`/${name}.ts"`, `::${name}`, `\\${name};`);
    // A dotted module path (`from ..json.tag import`, `require("luarocks.fs")`), a header (`#include "json.h"`),
    // Rust's `mod json;`, and a capitalised module at a line's end (`alias Plug.Conn`, Kotlin's `import okio.Buffer`).
    if (relations.imports) out.push(`.${name}.`, `.${name}"`, `.${name}'`, `${name}.h"`, `<${name}.h>`, `mod ${name};`);
    // Module names are capitalised in some languages (`alias App.Json`, `import okio.Buffer`, `use App\Json;`).
    const module = `${name[0]?.toUpperCase()}${name.slice(1)}`;
    if (relations.imports) out.push(`.${module}`, `\\${module};`);
    // Any quoted path or module whose last part is the name (`@import("json.zig")`, `-include("json.hrl")`,
    // `require 'json'`), and a namespace in a vector (`[app.json :as j]`): the import line decides, not the shape.
    if (relations.imports) out.push(`"${name}.`, `'${name}.`, `/${name}.`, `"${name}"`, `'${name}'`, `<${name}.`);
    if (relations.imports) out.push(`.${name} :`, `.${name}]`);
    if (relations.handles) out.push(`except ${name}`, `except (${name}`, `catch (${name}`, `catch(${name}`);
    if (relations.handles) out.push(`: ${name})`, `rescue ${name}`, `::${name} =>`, `, ${name})`, `.${name})`);
    if (relations.handles) out.push(`| ${name}`, `\\${name} $`, `${name} =>`);
    if (relations.constructs) out.push(`new ${name}(`, `new ${name}<`, `&${name}{`, `${name}{`, `${name}::new(`);
    if (relations.constructs) out.push(`${name}.new`, ` ${name}(`, `=${name}(`);
  }
  return out;
}

/**
 * How surely a line makes an object of one of the names, as the common languages spell it: 1 for `new X(`,
 * `X{`, `X::new(`, `X.new`, `= X(`; 0.5 for a call through something dotted (`= models.User(`, a module's
 * class, but as often a method of that name: `err.Error()`), 0 for none.
 */
function constructionTest(names: readonly string[]): (line: string) => number {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  if (simple.length === 0) return () => 0;
  const alt = simple.map(escapeRegExp).join('|');
  const made = new RegExp(
    `\\bnew\\s+(?:[\\w$]+[.\\\\])*(?:${alt})\\b|(?:^|[^\\w$.])(?:${alt})(?:<[^>]*>)?\\s*(?:\\{|::(?:new|default|from|with\\w*)\\b|\\.new\\b)|(?:[=:(,]|return|=>|yield|raise|throw)\\s*&?(?:${alt})\\s*\\(`,
  );
  const dotted = new RegExp(`(?:[=:(,]|return|=>|yield|raise|throw)\\s*&?(?:[\\w$]+\\.)+(?:${alt})\\s*\\(`);
  // A function's signature whose body opens after its return type (`func errorf() *Error {`, `fn f() -> Error {`)
  // reads like a literal `Error {`: a signature makes nothing.
  return (line) => (SIGNATURE_OPENS.test(line) ? 0 : made.test(line) ? 1 : dotted.test(line) ? 0.5 : 0);
}

/** A function's signature opening its body at the line's end, in the languages with a keyword for one. */
const SIGNATURE_OPENS = /^\s*(?:[\w@]+\s+)*(?:func|fn|fun|def|function)\b[^=]*\{\s*$/;

const LITERAL_QUOTES = ['"', "'", '`'];

/** A line that handles an error: `except X`, `catch (X e)`, `rescue X => e`, `errors.Is(err, X)`, `recover`. */
const HANDLER_LINE = /\b(?:except|catch|rescue|errors\.(?:Is|As)|recover)\b/;

/**
 * An import line that names the module by its path in the project (`from pkg.json import`, `'./json'`,
 * `crate::json`, `com.x.Json;`), not a top-level module of the same name (`import json`, the standard library's).
 */
function importsOwnModule(names: readonly string[]): (line: string) => boolean {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  if (simple.length === 0) return () => false;
  const alt = simple.map(escapeRegExp).join('|');
  const own = new RegExp(`(?:\\.|/|::|\\\\)(?:${alt})(?![\\w$-])|["'<](?:${alt})\\.\\w+["'>]`, 'i');
  // A relative import (`from . import json`, `from ..util import json`) is of the project's own module too.
  const relative = new RegExp(`^\\s*from\\s+\\.[\\w.]*\\s+import\\b.*(?<![\\w$])(?:${alt})(?![\\w$])`, 'i');
  return (line) => IMPORT_LINE.test(line) && (own.test(line) || relative.test(line));
}

/** A line that brings a module or a name into a file: `import`, `from … import`, `use`, `using`, `require(`. */
export const IMPORT_LINE =
  /^\s*(?:-(?:include|include_lib|import)\s*\(|\(\s*:?(?:require|import|use)\b|(?:@\w+\s+)*import\b|from\s+\S+\s+import\b|(?:pub(?:\([\w:]+\))?\s+)?(?:use|mod)\s+[\w:{]|(?:global\s+)?using\s+(?:static\s+)?[\w.=\s]+;|export\s+.*\bfrom\b|#\s*(?:include|import)\b|(?:alias|require|import|use)\s+[A-Z][\w.]*|extern\s+crate\b|(?:require_once|include_once|require|include)\b\s*\(?\s*['"]|load\s+['"])|\b(?:require(?:_relative)?|dofile|loadfile)\s*\(?\s*['"]|\bimport\(\s*['"]|^\s*(?:[\w.]+\s+)?"[\w.-]+(?:\/[\w.-]+)+"\s*$/;

/**
 * How a line relates to the names a relation question asks about: 2 for an import of the project's own module
 * by that name, 1 for another import of it, a subtype's declaration, a construction or a handler, 0 for none.
 * What a listing of the relation's lines holds: "which files import json" is answered by one line per file.
 */
export function relationRank(names: readonly string[], relations: Relations): (line: string) => number {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  if (simple.length === 0) return () => 0;
  const token = new RegExp(`(?<![\\w$])(?:${simple.map(escapeRegExp).join('|')})(?![\\w$])`);
  // An import names a module in its language's case (`json`, `Json`): the name matches either.
  const moduleToken = new RegExp(token.source, 'i');
  const defines = definitionTest(simple);
  const ownImport = importsOwnModule(simple);
  const constructs = relations.constructs ? constructionTest(simple) : () => 0;
  return (line) => {
    if (relations.imports && IMPORT_LINE.test(line) && moduleToken.test(line)) return ownImport(line) ? 2 : 1;
    if (!token.test(line)) return 0;
    // A field of the type made on its line (`private static Strategy _s = new Strategy();`) is a construction,
    // though its `static Strategy` reads like a definition.
    const made = constructs(line);
    if (made > 0) return made;
    if (defines(line) !== undefined) return 0;
    if (relations.subtypes && (DECLARATION.test(line) || SUBTYPE_CLAUSE.test(line))) return 1;
    return relations.handles && HANDLER_LINE.test(line) ? 1 : 0;
  };
}

/**
 * A manifest or lock line that names a package asked about with its version (`expect-test = "1.5.0"`,
 * `"left-pad": "^1.3.0"`, `gem 'rack', '~> 3.0'`, `<PackageReference Include="Serilog" Version="4.0.0" />`), or
 * whose version is on the next line (Maven's `<artifactId>` then `<version>`, a lock file's `name` then
 * `version`).
 */
export function declaresPackage(packages: readonly string[]): (line: string, next: string | undefined) => boolean {
  const usable = packages.filter((name) => name.length >= 2);
  if (usable.length === 0) return () => false;
  const named = new RegExp(`(?<![\\w.-])(?:${usable.map(escapeRegExp).join('|')})(?![\\w-])`, 'i');
  return (line, next) =>
    named.test(line) && (VERSION_VALUE.test(line.replace(named, '')) || /^\s*(?:<version>|version\b)/.test(next ?? ''));
}

const isManifestPath = MANIFEST_FILES.test;

/** A line that calls `name` (`name(`, `.name(`, `name!(`), which says more than one that only names it. */
function callTest(names: readonly string[]): (line: string) => boolean {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  if (simple.length === 0) return () => false;
  const call = new RegExp(`(?<![\\w$])(?:${simple.map(escapeRegExp).join('|')})!?\\s*\\(`);
  return (line) => call.test(line);
}

export interface RegionLimits {
  /** Lines of a definition kept; a longer block keeps its head. */
  definitionLines: number;
  /** Lines around a mention, on each side. */
  mentionContext: number;
}

export const defaultRegionLimits: RegionLimits = { definitionLines: 60, mentionContext: 1 };

const TEST_PATH =
  /(^|\/)(tests?|spec|specs|__tests__|testing|testdata)\/|[._-](test|spec)s?\.[\w]+$|_test\.go$|(^|\/)test_[^/]*$|(^|\/)conftest\.py$|\.Tests?\/|[a-z0-9]Tests?\.(java|cs|kt|scala)$/i;
export const DOC_PATH = /\.(md|mdx|rst|txt|adoc)$|(^|\/)(docs?|CHANGELOG|CHANGES|HISTORY)(\/|$|\.)/i;
const TASK_PATH =
  /(^|\/)(Makefile|GNUmakefile|makefile|justfile|Justfile|package\.json|pyproject\.toml|setup\.cfg|setup\.py|tox\.ini|noxfile\.py|Cargo\.toml|go\.mod|requirements[\w.-]*\.txt|Gemfile|pom\.xml|build\.gradle(\.kts)?|deno\.jsonc?|\.github\/workflows\/[^/]+\.ya?ml|CONTRIBUTING\.md|Taskfile\.ya?ml)$/;

export const isTestPath = (rel: string) => TEST_PATH.test(rel);
/** Reads of a settings object; an environment read is envReads.ts's shape, in any language. */
const READS_SETTINGS = /\b(?:config\.get|settings\.|getConfig|viper\.Get)/;
const readsConfig = (line: string) => readsEnvironment(line) || READS_SETTINGS.test(line);
/** A recipe line (tab-indented), a CI step's `run:`, a script entry (`"test": "…"`), a `name = "…"` task. */
const COMMAND_LINE =
  /^\t\S|^\s*(?:-\s*)?run:\s*\S|^\s*"[\w:.-]+"\s*:\s*"[^"]*\s[^"]*"|^\s*(?:commands|script|test|cmd)\s*[=:]/;
export const isTaskPath = (rel: string) => TASK_PATH.test(rel);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A line that defines `name`: `def name(`, `fn name`, `class Name`, `name = …`, `name(args) {`, `func (r) name(`. */
export function definitionTest(names: readonly string[]): (line: string) => string | undefined {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  // A kebab-case name (`wrap-params`) is defined by a Lisp form only: `(defn wrap-params`, `(defun valid-key?`.
  const kebab = names.filter((name) => /^[A-Za-z][\w]*(?:-[\w]+)+[?!*]?$/.test(name));
  const lisp = kebab.length === 0 ? undefined : lispDefinition(kebab);
  if (simple.length === 0) return lisp ? (line) => lisp.exec(line)?.[1] : () => undefined;
  const alt = simple.map(escapeRegExp).join('|');
  const keyword = new RegExp(
    `\\b(?:function\\*?|def|defp|defmacro|defmodule|class|fn|fun|func|sub|proc|struct|interface|protocol|type|typealias|enum|trait|impl|module|object|record|macro_rules!|const|let|var|val|static)\\s+(?:\\([^)]*\\)\\s*)?(?:[\\w$]+\\s*\\.\\s*)?(${alt})(?![\\w$])`,
  );
  // A member or a name assigned at the margin: `name: …`, `name = …`, R's `name <- function(…)`, a one-line
  // definition with its parameters (`name(x) = …`, Julia), `name(args) {`.
  const member = new RegExp(
    `^\\s*(?:(?:export|default|public|private|protected|static|async|override|readonly|abstract|pub(?:\\([\\w:]+\\))?|unsafe|inline|virtual|final)\\s+)*(${alt})\\s*(?:<[^>]*>)?\\s*(?:\\([^)]*\\)?\\s*(?:[:\\-]>?\\s*[^={;]+)?\\s*\\{\\s*$|[:=](?!=)|<<?-(?!-)|\\([^)]*\\)\\s*=(?![=>]))`,
  );
  const pyAssign = new RegExp(`^(${alt})\\s*(?::[^=]+)?=(?!=)`);
  // Typed declarations (Java, C#, Kotlin, C++): modifiers, a type, then the name: `private static int retries = 3;`.
  const typed = new RegExp(
    `^\\s*(?:(?:public|private|protected|internal|static|final|const|readonly|abstract|virtual|override|sealed|async|synchronized|extern|unsafe|partial|volatile|transient)\\s+)+(?:[\\w$.]+(?:<[^;=()]*>)?(?:\\[\\])*\\??\\s+)?(${alt})\\s*(?:<[^>]*>\\s*)?(?:[=;({]|$)`,
  );
  // C and C++ at the margin: a return type, then the name and its parameters (`static int parse_args(int argc,`),
  // not a statement (`return f(x);`) nor a prototype ending in `;`.
  const cLike = new RegExp(
    `^(?!(?:return|else|if|while|for|switch|case|do|goto|sizeof|typedef)\\b)[A-Za-z_][\\w]*(?:[\\s*&]+(?:const\\s+)?[A-Za-z_][\\w:]*)*?[\\s*&]+(?:[\\w]+::)?(${alt})\\s*\\([^;]*$`,
  );
  // Rust's `impl Trait for Name`: what the type implements is part of its definition.
  const implFor = new RegExp(`^\\s*impl\\b(?:<[^>]*>)?\\s+[\\w:<>, ]+\\s+for\\s+(${alt})\\b`);
  return (line) =>
    lisp?.exec(line)?.[1] ??
    keyword.exec(line)?.[1] ??
    member.exec(line)?.[1] ??
    pyAssign.exec(line)?.[1] ??
    typed.exec(line)?.[1] ??
    implFor.exec(line)?.[1] ??
    cLike.exec(line)?.[1];
}

/** `(defn name`, `(defn- name`, `(defun name`, `(define (name`, `(defmacro name`: a Lisp's definition forms. */
function lispDefinition(names: readonly string[]): RegExp {
  const alt = names.map(escapeRegExp).join('|');
  return new RegExp(`\\(\\s*def[\\w-]*\\s+\\(?\\s*(${alt})(?![\\w?!*-])`);
}

/**
 * A declaration line (of something else) that names the symbol: `class Foo extends Base`, `fn f(x: Base)`,
 * behind any language's modifiers and annotations (Kotlin's `private inner class`, `data class`, Swift's
 * `final class` and `extension`, Scala's `case class`, Dart's `base class` and `mixin`, `@Suppress(…) class`).
 */
const DECLARATION =
  /^\s*(?:(?:@[\w.]+(?:\([^)]*\))?|export|default|public|private|protected|internal|fileprivate|static|abstract|final|sealed|partial|async|open|inner|data|value|annotation|companion|override|indirect|case|implicit|lazy|base|expect|actual|readonly|ref|pub(?:\([\w:]+\))?|unsafe)\s+)*(?:class|interface|struct|trait|impl|enum|record|type|def|fn|func|function|object|protocol|extension|actor|mixin|union)\b/;

/** A line that opens a block: `test('…', async t => {`, `it "…" do`, `def test_x():`, `case "…":`. */
const OPENS_BLOCK = /(?:\{|=>|:|\bdo(?:\s*\|[^|]*\|)?)\s*$/;

/**
 * A type's header continued on its own line: `    implements Serializer<T> {`, `  extends Base`, Scala's
 * `  with Logging`, and the supertypes after a constructor's parameters closed on their own line (Kotlin's
 * `) : CancelHandler, SelectBuilder<R> {`).
 */
const SUBTYPE_CLAUSE = /^\s*(?:[)>]\s*)?(?:extends|implements|with|:)\s+[\w$.]/;

/** Lines of a document's section sent from a heading naming a version the question writes: a release's entries. */
const SECTION_LINES = 40;
/** Lines of a section sent from a heading holding the question's words: a topic's first lines. */
const TOPIC_LINES = 12;

/** Lines of a file's head sent when its name is what the question asks about. */
const HEAD_LINES = 12;

/** Room, in characters, worth a cut definition's head. */
const MIN_HEAD_CHARS = 240;

/** A longer line (minified, data) is cut when rendered. */
const MAX_LINE = 400;
const indentOf = (line: string) => line.length - line.trimStart().length;
const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';
const CLOSER = /^\s*(?:[}\])]+[;,)]*|end\b.*)\s*$/;
const SIGNATURE_END = /^\s*[)\]][^{}]*[:{]\s*$|^\s*[)\]]\s*(?:->|:|=>|where\b)/;

/** A definition's block: from its line (and the decorators or doc comment above) to the end of its indentation. */
export function definitionBlock(
  lines: readonly string[],
  at: number,
  maxLines: number,
): { start: number; end: number } {
  const depth = indentOf(lines[at] ?? '');
  let end = at;
  // A brace on the next line of its own (C#, Java in Allman style) opens the block too.
  const braceBelow = /^\s*\{\s*$/.test(lines[at + 1] ?? '');
  const opensBlock =
    /[{:(]\s*$|=>\s*$|\bdo\s*$/.test(lines[at] ?? '') || indentOf(lines[at + 1] ?? '') > depth || braceBelow;
  if (opensBlock) {
    end = lines.length - 1;
    for (let i = at + 1; i < lines.length; i++) {
      if (isBlank(lines[i]) || indentOf(lines[i] ?? '') > depth || (braceBelow && i === at + 1)) continue;
      // The end of a signature written over several lines (`) -> Any:`, `) {`): the body follows.
      if (SIGNATURE_END.test(lines[i] ?? '')) continue;
      end = CLOSER.test(lines[i] ?? '') ? i : i - 1;
      break;
    }
  }
  while (end > at && isBlank(lines[end])) end--;
  let start = at;
  while (start > 0 && at - start < 8 && /^\s*(?:@|\/\/\/|\/\*\*|\*|#\[|"""|\/\/)/.test(lines[start - 1] ?? '')) start--;
  return { start, end: Math.min(end, start + maxLines - 1) };
}

/** Weight of the file itself, by what the question asks for. */
function fileWeight(rel: string, context: RankContext): number {
  const wants = (intent: Intent) => context.intents.includes(intent);
  let weight = 0;
  if (context.changed.has(rel)) weight += 30;
  if (isTestPath(rel)) weight += wants('tests') ? 40 : -5;
  if (isTaskPath(rel)) weight += wants('version') || wants('build') || wants('tests') ? 45 : 0;
  else if (isManifestPath(rel) && wants('version')) weight += 30;
  // A file asked for by its role (the license, a file named like the question's word) is the answer whatever its
  // extension: `LICENSE.md` is not documentation beside the code.
  if (DOC_PATH.test(rel) && !isTaskPath(rel) && !context.heads?.has(rel)) weight -= 15;
  return weight;
}

/** The regions of one file, merged and scored. */
export function fileRegions(
  rel: string,
  lines: readonly string[],
  hits: readonly GrepHit[],
  context: RankContext,
  limits: RegionLimits = defaultRegionLimits,
): FileRegions {
  const defines = definitionTest(context.names);
  const constructs = context.relations?.constructs ? constructionTest(context.names) : () => 0;
  const ownImport = context.relations?.imports ? importsOwnModule(context.names) : () => false;
  const handles = context.relations?.handles
    ? (line: string) => HANDLER_LINE.test(line) && context.names.some((name) => line.includes(name))
    : () => false;
  const wantsUses = context.intents.includes('uses');
  // Asked which tests exercise it, or who uses it: a line calling it answers, one only naming it less.
  const calls =
    wantsUses || (context.intents.includes('tests') && isTestPath(rel)) ? callTest(context.names) : () => false;
  const declaresDependency =
    context.packages && context.packages.length > 0 && isManifestPath(rel)
      ? declaresPackage(context.packages)
      : undefined;
  const statesVersion =
    context.subjects && context.subjects.length > 0 && (isManifestPath(rel) || !rel.includes('/'))
      ? statesVersionOf(context.subjects)
      : () => false;
  const task = isTaskPath(rel);
  const wantsConfig = context.intents.includes('configuration');
  const doc = DOC_PATH.test(rel);
  const raw: Region[] = [];
  const named = (line: string) => context.names.find((name) => line.includes(name)) ?? context.names[0] ?? '';
  for (const hit of hits) {
    const at = hit.line - 1;
    const line = lines[at] ?? hit.text;
    const qualified = context.qualified.some((name) => line.includes(name));
    const defined = defines(line);
    const spelt = context.strings.filter((text) => line.includes(text));
    if (spelt.length > 0) {
      // The line that spells the error or the string: the most direct answer there is. When it opens a block
      // (a test named by the string, a handler for the message), the block is what it does.
      const section = doc ? sectionBlock(lines, at, SECTION_LINES) : undefined;
      const opens = section !== undefined || OPENS_BLOCK.test(line);
      const block = section ?? (opens ? definitionBlock(lines, at, limits.definitionLines) : undefined);
      const start = block?.start ?? Math.max(0, at - limits.mentionContext - 1);
      const end = block?.end ?? Math.min(lines.length - 1, at + limits.mentionContext);
      // The string as a literal of its own (`case "--bind":`, `get('/login'`) is where the code handles it; inside
      // a longer string (help text, a message) it is only mentioned.
      const literal = spelt.some((text) => LITERAL_QUOTES.some((q) => line.includes(`${q}${text}${q}`)));
      raw.push({
        start,
        end,
        score: 150 + (literal ? 15 : 0),
        definition: opens,
        why: literal ? 'spells the quoted text as a literal' : 'spells the quoted text',
      });
    } else if (defined !== undefined && (wantsUses || context.relations)) {
      // Asked who uses, imports or extends it: the signature says what it is; the room goes to the others.
      raw.push({
        start: at,
        end: Math.min(lines.length - 1, at + 1),
        score: 50,
        definition: true,
        why: `defines ${defined}`,
      });
    } else if (defined !== undefined) {
      const block = definitionBlock(lines, at, limits.definitionLines);
      raw.push({ ...block, score: 100 + (qualified ? 20 : 0), definition: true, why: `defines ${defined}` });
    } else {
      const version = context.versions?.find((written) => line.includes(written));
      // A document's heading that names what was asked: the section under it is what the document says of it, a
      // release's whole (its version was written), a topic's first lines (its words may head many sections, of
      // which the code's own lines are often the better answer). A question that names code is answered by the
      // code, and a document's heading of that name only mentions it.
      const section =
        doc && version !== undefined
          ? sectionBlock(lines, at, SECTION_LINES)
          : doc && context.names.length === 0
            ? sectionBlock(lines, at, TOPIC_LINES)
            : undefined;
      const start = section?.start ?? Math.max(0, at - limits.mentionContext);
      const end = section?.end ?? Math.min(lines.length - 1, at + limits.mentionContext);
      // In a task file, a line that runs something (a recipe, a script, a CI step) is how it is done.
      const command = task && COMMAND_LINE.test(line) ? 40 : 0;
      // Asked for a package's version: its manifest (or lock) line, with the version, is the answer itself.
      // A tool's version written as a part of a longer key (`minimum_zig_version = "0.14"`) answers as well.
      const dependency = declaresDependency?.(line, lines[at + 1]) ? 110 : statesVersion(line) ? 100 : 0;
      const call = calls(line) ? 30 : 0;
      // Asked where a setting is read: the line that reads configuration is the answer.
      const reads = wantsConfig && readsConfig(line) ? 40 : 0;
      // A declaration that names it (a subclass, an implementation, a parameter's type) says how it is related.
      const declares =
        (DECLARATION.test(line) || SUBTYPE_CLAUSE.test(line)) && context.names.some((name) => line.includes(name))
          ? 30
          : 0;
      // Asked who imports, extends or implements it: a line doing so is an answer, above a plain mention.
      const relation = context.relations;
      // An import of the project's own module by that name outranks one of a library's (`import json`).
      const own = ownImport(line) ? 30 : 0;
      const handler = handles(line);
      const relates =
        (relation?.subtypes && declares > 0) ||
        (relation?.imports && IMPORT_LINE.test(line)) ||
        constructs(line) > 0 ||
        handler
          ? 40 + own
          : // A relation not asked for is still closer than a mention.
            relation && (declares > 0 || IMPORT_LINE.test(line))
            ? 10
            : 0;
      const name = named(line);
      // A version the question writes: the section of a changelog's or a document's heading naming it is the
      // answer; a line naming it (a manifest's, a CI matrix's) is near one.
      const versioned = version === undefined ? 0 : section ? 90 : 30;
      const why =
        version !== undefined && versioned > dependency
          ? `${section ? 'section of' : 'mentions'} ${version}`
          : dependency > 0
            ? `declares ${context.packages?.find((p) => line.toLowerCase().includes(p.toLowerCase())) ?? 'the dependency'}`
            : command > 0
              ? 'task line'
              : reads > 0
                ? `reads configuration${name ? ` (${name})` : ''}`
                : declares > 0
                  ? `declaration naming ${name}`
                  : relates > 0 && IMPORT_LINE.test(line)
                    ? `imports ${name}`
                    : handler
                      ? `handles ${name}`
                      : relates > 0
                        ? `creates ${name}`
                        : call > 0 && name
                          ? `calls ${name}`
                          : wantsUses && name
                            ? `uses ${name}`
                            : name
                              ? `mentions ${name}`
                              : 'matched the question';
      raw.push({
        start,
        end,
        score:
          20 +
          Math.max(dependency, versioned) +
          command +
          reads +
          declares +
          relates +
          call +
          (qualified ? 20 : 0) +
          (wantsUses ? 50 : 0),
        // A section too long for the room left still sends its head: the heading and its first entries.
        definition: section !== undefined,
        why,
      });
    }
  }
  const head = context.heads?.get(rel);
  if (head !== undefined && lines.length > 0) {
    // The heads come best first (the root's license before a vendored copy's): their order breaks a tie.
    const order = [...(context.heads?.keys() ?? [])].indexOf(rel);
    // A file asked for by its role (the license, the CI workflow) is what the question names outright, above the
    // lines its words find elsewhere; a file merely named like a word of the question is a guess.
    const score = (context.headLines?.has(rel) ? 150 : 90) + Math.max(0, 4 - order);
    let start = 0;
    for (const pattern of context.headFocus?.get(rel) ?? []) {
      const at = lines.findIndex((line) => pattern.test(line));
      if (at >= 0) {
        start = at;
        break;
      }
    }
    const end = Math.min(lines.length - 1, start + (context.headLines?.get(rel) ?? HEAD_LINES) - 1);
    // A long head (a workflow, a changelog's newest release) cut for room still sends its first lines.
    raw.push({ start, end, score, definition: end - start >= HEAD_LINES, why: head });
  }
  const regions = mergeRegions(raw);
  const weight = fileWeight(rel, context);
  const best = regions.reduce((max, region) => Math.max(max, region.score), 0);
  // Several hits in one file say more than one, with diminishing returns.
  return { rel, regions, score: best + weight + Math.min(20, 4 * (regions.length - 1)) };
}

/** Overlapping or adjacent regions become one, with the better score. */
export function mergeRegions(regions: readonly Region[]): Region[] {
  const sorted = [...regions].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Region[] = [];
  for (const region of sorted) {
    const last = merged.at(-1);
    if (last && region.start <= last.end + 1) {
      last.end = Math.max(last.end, region.end);
      if (region.score > last.score) last.why = region.why;
      last.score = Math.max(last.score, region.score);
      last.definition ||= region.definition;
    } else merged.push({ ...region });
  }
  return merged;
}

/**
 * The regions as text: each preceded by its first line number (`@@ 12 @@`), so
 * the model can cite places; best regions first until `maxChars`.
 */
export function renderRegions(
  lines: readonly string[],
  regions: readonly Region[],
  maxChars: number,
): { text: string; ranges: string[]; cut: boolean } {
  const chosen: Region[] = [];
  let chars = 0;
  let cut = false;
  const lineSize = (line: string) => Math.min(line.length, MAX_LINE) + 3;
  for (const region of [...regions].sort((a, b) => b.score - a.score || a.start - b.start)) {
    const size = lines.slice(region.start, region.end + 1).reduce((sum, line) => sum + lineSize(line), 12);
    if (chars + size > maxChars && chosen.length > 0) {
      cut = true;
      // A definition too long for the room left still sends its head (signature, doc, first lines): what it
      // is matters more than a lower region that fits whole.
      if (region.definition && maxChars - chars >= MIN_HEAD_CHARS) {
        let end = region.start;
        let used = 12 + lineSize(lines[region.start] ?? '');
        while (end < region.end && used + lineSize(lines[end + 1] ?? '') <= maxChars - chars) {
          end++;
          used += lineSize(lines[end] ?? '');
        }
        if (used <= maxChars - chars) {
          chosen.push({ ...region, end });
          chars += used;
        }
      }
      continue;
    }
    chosen.push(region);
    chars += size;
  }
  chosen.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  const ranges: string[] = [];
  for (const region of chosen) {
    const body = lines
      .slice(region.start, region.end + 1)
      .map((line) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)} …` : line))
      .join('\n');
    parts.push(`@@ ${region.start + 1} @@\n${body.length > maxChars ? `${body.slice(0, maxChars)}\n…` : body}`);
    ranges.push(region.start === region.end ? `${region.start + 1}` : `${region.start + 1}-${region.end + 1}`);
  }
  return { text: parts.join('\n'), ranges, cut };
}
