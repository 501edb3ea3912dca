// Definitions and references of one parsed file. Walks the syntax tree with
// the grammar's table (languages.ts): definition nodes give a name, a line
// range and a signature (the text before the body, on one line); class-like
// bodies give `Class.method`. References are the identifiers used, each with
// its line and what the use is (a call, an import, a type), for the stored
// index's "who uses X" and the repository map's ranking.
//
// Each definition also carries where its text is (`spans`, `sig`: offsets in
// the file's text), so the stored index keeps numbers only and the names and
// signatures are read again from the file when shown (`definitionAt`).

import type { Node, Tree, TreeCursor } from '@vscode/tree-sitter-wasm';
import type { DefKind, GrammarSpec, NodeRule } from './languages.ts';

export interface Definition {
  /** Bare name: `create`. */
  name: string;
  /** With its container: `OrderService.create` (same as name at the top). */
  qualified: string;
  kind: DefKind;
  /** 1-based, inclusive. */
  line: number;
  endLine: number;
  signature: string;
  /** Nesting depth (0 at the top), for the outline's indentation. */
  depth: number;
  /** Where the qualified name's pieces are in the text: `[from, to]` pairs, outermost first (the last is the name). */
  spans: number[];
  /** Where the signature's text is (`[from, to]`), and 1 when a body was cut off after it (its opener is dropped). */
  sig: [number, number, number];
}

/** What a use of a name is, as the syntax says: a call (or construction), an import, a type, anything else. */
export type ReferenceKind = 'call' | 'import' | 'type' | 'use';

export interface Reference {
  name: string;
  /** 1-based. */
  line: number;
  kind: ReferenceKind;
}

const MAX_SIGNATURE = 200;
/** Definitions kept per file (a generated table of 10,000 constants is not an outline). */
const MAX_DEFS = 400;
/** Distinct referenced names kept per file. */
const MAX_REFS = 600;
/** Uses kept per file, and per name in a file (the stored index lists a few lines per file). */
const MAX_USES = 2_000;
const MAX_USES_PER_NAME = 3;
/** How deep containers are looked into (`mod a { mod b { impl C { fn d } } }`). */
const MAX_DEPTH = 4;
/** How deep looked-through nodes are followed (`if` in `if` in a block…): a deeply nested file costs no stack. */
const MAX_THROUGH = 48;

/**
 * Where the header of a definition is: its text before the body (`bodyField`; `-` for none: the first line),
 * bounded; `body` says a body was cut off after it.
 */
function signatureSpan(node: Node, bodyField: string | undefined): [number, number, number] {
  const body =
    bodyField === '-' ? null : (node.childForFieldName(bodyField ?? 'body') ?? node.childForFieldName('value'));
  const length = node.endIndex - node.startIndex;
  const end = body && body.startIndex > node.startIndex ? body.startIndex - node.startIndex : length;
  // Only the first lines: a long object literal's value is not part of the signature.
  let to = Math.min(end, 600);
  if (!body) {
    const head = node.text.slice(0, to);
    const newline = head.indexOf('\n');
    if (newline !== -1) to = newline;
  }
  return [node.startIndex, node.startIndex + to, body ? 1 : 0];
}

/** The signature as shown: the span's text on one line, without the body's opener, bounded. */
export function signatureText(text: string, [from, to, body]: readonly [number, number, number]): string {
  let flat = text.slice(from, to).replace(/\s+/g, ' ').trim();
  // The opening of the body that was cut off (`{`, `:` of a Python def, `=` of an arrow function).
  if (body) flat = flat.replace(/\s*(\{|:|=>?)$/, '');
  return flat.length > MAX_SIGNATURE ? `${flat.slice(0, MAX_SIGNATURE - 1)}…` : flat;
}

/** Where a Go method's receiver type is: `func (s *Store) Get()` → `Store`. */
function goReceiver(node: Node): [number, number] | undefined {
  const receiver = node.childForFieldName('receiver');
  const match = receiver ? /\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)$/d.exec(receiver.text) : null;
  const at = match?.indices?.[1];
  return receiver && at ? [receiver.startIndex + at[0], receiver.startIndex + at[1]] : undefined;
}

/** A Rust impl's type name without generics or paths: `impl<T> Trait for foo::Bar<T>` → `Bar`. */
function plainTypeName(text: string): string {
  const base = text.replace(/<.*$/s, '');
  return base.split('::').at(-1)?.trim() ?? base;
}

/** The span of a Rust impl's plain type name inside its type node's span. */
function plainTypeSpan(node: Node): [number, number] {
  const name = plainTypeName(node.text);
  const at = node.text.replace(/<.*$/s, '').lastIndexOf(name);
  return at < 0 ? [node.startIndex, node.endIndex] : [node.startIndex + at, node.startIndex + at + name.length];
}

/**
 * A stored definition read again from its file's text (`spans`, `sig`); undefined when the text no longer
 * holds it there (the file changed since it was indexed: the caller re-indexes it).
 */
export function definitionAt(
  text: string,
  stored: Pick<Definition, 'kind' | 'line' | 'endLine' | 'depth' | 'spans' | 'sig'>,
): Definition | undefined {
  const pieces: string[] = [];
  for (let i = 0; i + 1 < stored.spans.length; i += 2) {
    const from = stored.spans[i] ?? 0;
    const to = stored.spans[i + 1] ?? 0;
    if (to > text.length || from >= to) return undefined;
    pieces.push(text.slice(from, to));
  }
  const name = pieces.at(-1);
  if (!name || pieces.some((piece) => !/^[\p{L}\p{N}_$]+$/u.test(piece))) return undefined;
  if (stored.sig[1] > text.length) return undefined;
  return { ...stored, name, qualified: pieces.join('.'), signature: signatureText(text, stored.sig) };
}

/** The signature's span and its text (tests and the outline of a fresh parse read the text; the index keeps the span). */
function signatureOf(node: Node, bodyField: string | undefined): { signature: string; sig: [number, number, number] } {
  const sig = signatureSpan(node, bodyField);
  return { sig, signature: signatureText(node.text, [0, sig[1] - sig[0], sig[2]]) };
}

/** A node's last line, 1-based: a node that ends with its newline (a `#define`) ends on the line before. */
function lastLine(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

/** Where a definition's name is, and the qualifier its own name carries (`Class::method`, `Rack::Response`). */
interface NameAt {
  name: string;
  nameAt: [number, number];
  qualifier?: string;
  qualifierAt?: [number, number];
}

/** C declarators that wrap the declared name (`*f`, `f(int)`, `&r`, `a[3]`, `x = 1`): followed by their `declarator`. */
const MAX_CHAIN = 12;
/** Names with their scope (`a::b`, `Rack::Response`, `A.B`): the name is their `name` field, the scope before it. */
const QUALIFIED = new Set(['qualified_identifier', 'scope_resolution', 'qualified_name']);
/** A name with template arguments or a setter's `=`: the plain name is their `name` field. */
const DECORATED = new Set(['template_type', 'template_function', 'setter']);
/** What a definition's name must look like to be read back (extract.ts `definitionAt`): no operators, no `~`. */
const PLAIN_NAME = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** The plain name inside a decorated one (`buffer<T>` → `buffer`), or the node itself. */
function undecorated(node: Node): Node {
  let at = node;
  for (let i = 0; i < MAX_CHAIN && DECORATED.has(at.type); i++) {
    const inner = at.childForFieldName('name');
    if (!inner) break;
    at = inner;
  }
  return at;
}

/** The node that names a definition (its field, or the end of its declarator chain), or undefined. */
function nameNodeOf(node: Node, rule: NodeRule): Node | undefined {
  if (!rule.declarator) return node.childForFieldName(rule.nameField ?? 'name') ?? undefined;
  let at = node.childForFieldName('declarator');
  let isFunction = false;
  for (let i = 0; at && i < MAX_CHAIN; i++) {
    if (at.type === 'function_declarator') isFunction = true;
    const inner = at.childForFieldName('declarator');
    if (!inner) break;
    at = inner;
  }
  return at && (rule.declarator === 'any' || isFunction) ? at : undefined;
}

/** Where a definition's name is (a trailing `?` or `!` of a Ruby method left out), or undefined when it has none. */
function nameAtOf(node: Node, rule: NodeRule): NameAt | undefined {
  if (rule.needs && !node.childForFieldName(rule.needs)) return undefined;
  let name = nameNodeOf(node, rule);
  if (!name || (rule.nameTypes && !rule.nameTypes.includes(name.type))) return undefined;
  let scope: Node | undefined;
  for (let i = 0; i < MAX_CHAIN && QUALIFIED.has(name.type); i++) {
    const inner = name.childForFieldName('name');
    if (!inner) break;
    scope = name.childForFieldName('scope') ?? name.childForFieldName('qualifier') ?? scope;
    name = inner;
  }
  name = undecorated(name);
  const text = name.text.replace(/[?!]$/, '');
  if (!PLAIN_NAME.test(text)) return undefined;
  const named: NameAt = { name: text, nameAt: [name.startIndex, name.startIndex + text.length] };
  if (!scope) return named;
  // The innermost scope names the class (`fmt::detail::buffer<T>::size` → `buffer`).
  const last = undecorated(scope);
  return PLAIN_NAME.test(last.text)
    ? { ...named, qualifier: last.text, qualifierAt: [last.startIndex, last.endIndex] }
    : named;
}

export function extractDefinitions(tree: Tree, spec: GrammarSpec): Definition[] {
  const defs: Definition[] = [];
  const add = (def: Definition) => {
    if (defs.length < MAX_DEFS) defs.push(def);
  };

  /** `container`: the enclosing names as they read (`OrderService`), `at`: where they are. */
  const visit = (
    node: Node,
    container: string | undefined,
    at: number[],
    memberKind: DefKind | undefined,
    depth: number,
    through = 0,
  ) => {
    if (defs.length >= MAX_DEFS || depth > MAX_DEPTH || through > MAX_THROUGH) return;
    for (const child of node.namedChildren) {
      if (!child) continue;
      const type = child.type;
      const rule = spec.rules[type];
      if (rule) {
        let named: NameAt | undefined;
        let name: string;
        if (type === 'impl_item') {
          const nameNode = child.childForFieldName(rule.nameField ?? 'name');
          if (!nameNode?.text) continue;
          name = plainTypeName(nameNode.text);
          named = { name, nameAt: plainTypeSpan(nameNode) };
        } else {
          named = nameAtOf(child, rule);
          if (!named) {
            // An anonymous namespace still holds definitions.
            const body = rule.scope === 'none' && rule.members ? child.childForFieldName(rule.members) : null;
            if (body) visit(body, container, at, memberKind, depth + 1);
            continue;
          }
          name = named.name;
        }
        const { nameAt } = named;
        let qualifier = container;
        let qualifierAt = at;
        if (named.qualifier !== undefined && named.qualifierAt) {
          // `size_t buffer<T>::size() const { … }`: qualified by the class it names.
          qualifier = named.qualifier;
          qualifierAt = named.qualifierAt;
        }
        if (type === 'method_declaration' && child.childForFieldName('receiver')) {
          const receiver = goReceiver(child);
          qualifier = receiver
            ? child.text.slice(receiver[0] - child.startIndex, receiver[1] - child.startIndex)
            : undefined;
          qualifierAt = receiver ?? [];
        }
        const isCallable = rule.kind === 'function' || rule.kind === 'method';
        const kind =
          memberKind && isCallable ? memberKind : named.qualifier !== undefined && isCallable ? 'method' : rule.kind;
        // A Rust impl is not a definition of its own (the struct is); it only qualifies its methods.
        if (type !== 'impl_item') {
          add({
            name,
            qualified: qualifier ? `${qualifier}.${name}` : name,
            kind,
            line: child.startPosition.row + 1,
            endLine: lastLine(child),
            depth,
            spans: [...qualifierAt, ...nameAt],
            ...signatureOf(child, rule.wholeLine ? '-' : rule.members),
          });
        }
        if (rule.members) {
          const body = child.childForFieldName(rule.members);
          let inner = qualifier && type !== 'impl_item' ? `${qualifier}.${name}` : name;
          let innerAt = qualifier && type !== 'impl_item' ? [...qualifierAt, ...nameAt] : nameAt;
          if (rule.scope === 'none') {
            inner = container as string;
            innerAt = at;
          } else if (rule.scope === 'own') {
            inner = name;
            innerAt = nameAt;
          }
          if (body) visit(body, inner, innerAt, rule.memberKind, type === 'impl_item' ? depth : depth + 1);
        }
        continue;
      }
      const declarator = spec.declarators[type];
      if (declarator && (!declarator.topOnly || container === undefined)) {
        const head = child.text.slice(0, 200);
        if (declarator.onlyWhen && !declarator.onlyWhen.test(head)) continue;
        const list = declarator.within ? child.namedChildren.find((part) => part?.type === declarator.within) : child;
        for (const decl of list?.namedChildren ?? []) {
          if (decl?.type !== declarator.declarator) continue;
          const nameNode =
            decl.childForFieldName('name') ??
            decl.childForFieldName('left') ??
            decl.childForFieldName('declarator') ??
            decl.namedChildren.find((part) => part?.type === 'name');
          if (nameNode?.type !== 'identifier' && nameNode?.type !== 'name') continue;
          const value = decl.childForFieldName('value') ?? decl.childForFieldName('right');
          const isFunction = value ? /function|arrow_function|lambda/.test(value.type) : false;
          const constant = declarator.constWhen?.test(head) ?? false;
          add({
            name: nameNode.text,
            qualified: container ? `${container}.${nameNode.text}` : nameNode.text,
            kind: isFunction ? 'function' : constant ? 'const' : declarator.kind,
            line: child.startPosition.row + 1,
            endLine: child.endPosition.row + 1,
            depth,
            spans: [...(container ? at : []), nameNode.startIndex, nameNode.endIndex],
            ...signatureOf(child, isFunction ? undefined : '-'),
          });
        }
        continue;
      }
      if (spec.through.includes(type)) {
        // `export_statement`, decorators, Go's `type ( … )`: look through, same container.
        visit(child, container, at, memberKind, depth, through + 1);
      } else if (container !== undefined && (type === 'class_body' || type === 'declaration_list')) {
        visit(child, container, at, memberKind, depth, through + 1);
      }
    }
  };
  visit(tree.rootNode, undefined, [], undefined, 0);
  return defs;
}

/** The text as the grammar is given it: the spec's masks blanked with spaces (same length, same lines). */
export function masked(text: string, spec: GrammarSpec): string {
  let out = text;
  for (const mask of spec.masks ?? []) {
    out = out.replace(mask, (_match, keep: string, blank: string) => keep + ' '.repeat(blank.length));
  }
  return out;
}

/** Distinct identifiers the file uses (at least three characters), bounded. */
export function extractReferences(tree: Tree, spec: GrammarSpec): string[] {
  return extractUses(tree, spec).names;
}

/** Node types that bring names into a file: every name under them is imported. */
const IMPORTS = new Set([
  'import_statement',
  'import_from_statement',
  'future_import_statement',
  'import_declaration',
  'import_spec',
  'use_declaration',
  'extern_crate_declaration',
  'preproc_include',
  'using_directive',
  'namespace_use_declaration',
  'require_expression',
  'require_once_expression',
  'include_expression',
  'include_once_expression',
]);
/** The text nodes of string literals in the shipped grammars (the quotes are their siblings). */
const STRING_CONTENTS = new Set(['string_fragment', 'string_content', 'interpreted_string_literal_content']);

/** Extensions a module path may end in: stripped, so `./router.js` and `json.h` name `router` and `json`. */
const MODULE_EXTENSION =
  /\.(?:[cm]?[jt]sx?|json|css|h|hh|hpp|hxx|zig|rb|lua|py|go|rs|hrl|erl|clj[cs]?|exs?|dart|vue|svelte|php|sh|bash)$/i;

/**
 * The name a module path gives its file: the last segment without its extension (a Go major version suffix
 * `v2` names its parent). Undefined when that is not a plain name.
 */
export function moduleStem(path: string): string | undefined {
  const segments = path
    .replace(/^[<"']|[>"']$/g, '')
    .replace(MODULE_EXTENSION, '')
    .split(/[\\/]/)
    .filter(Boolean);
  let stem = segments.pop();
  if (stem !== undefined && /^v\d+$/.test(stem)) stem = segments.pop();
  return stem !== undefined && /^[A-Za-z_$][\w$-]{1,79}$/.test(stem) ? stem : undefined;
}

/** Calls and constructions, with the fields that hold what is called. */
const CALLS: Record<string, readonly string[]> = {
  call_expression: ['function'],
  call: ['function', 'method'],
  new_expression: ['constructor', 'type'],
  invocation_expression: ['function'],
  function_call_expression: ['function'],
  member_call_expression: ['name'],
  nullsafe_member_call_expression: ['name'],
  scoped_call_expression: ['name'],
  // A shell command's name is what it runs (`command_name` holds it without a field).
  command_name: [''],
  method_invocation: ['name'],
  // PHP's `new Pool()` names the class without a field.
  object_creation_expression: ['type', ''],
  macro_invocation: ['macro'],
  struct_expression: ['name'],
  composite_literal: ['type'],
};
/** Member accesses and paths (`a.b`, `a::b`), with the field of the member's name and of the path before it. */
const MEMBERS: Record<string, readonly string[]> = {
  member_expression: ['property'],
  attribute: ['attribute'],
  field_expression: ['field'],
  selector_expression: ['field'],
  scoped_identifier: ['name', 'path'],
  scoped_type_identifier: ['name', 'path'],
  generic_type: ['type'],
  qualified_identifier: ['name'],
  template_function: ['name'],
  member_access_expression: ['name'],
  generic_name: [''],
};

interface Frame {
  type: string;
  field: string | null;
  /** It imports what it names (an import node, or a call of `require`/`source`). */
  imports: boolean;
}

/** Whether the node under the cursor is a call that imports (`require 'x'`, `source lib.sh`). */
function importsByCall(cursor: TreeCursor, spec: GrammarSpec, type: string): boolean {
  const calls = spec.importCalls;
  if (calls?.node !== type) return false;
  const callee = cursor.currentNode.childForFieldName(calls.field)?.text;
  return callee !== undefined && calls.names.includes(callee);
}

/** What a name at this place is used as, from its own field and its nearest ancestors. */
function useKind(type: string, field: string | null, stack: readonly Frame[], importing: boolean): ReferenceKind {
  if (importing) return 'import';
  const parent = stack.at(-1);
  const grand = stack.at(-2);
  if (parent && CALLS[parent.type]?.includes(field ?? '')) return 'call';
  if (parent && grand && MEMBERS[parent.type]?.includes(field ?? '') && CALLS[grand.type]?.includes(parent.field ?? ''))
    return 'call';
  if (type.endsWith('type_identifier') || field === 'type' || parent?.type === 'type') return 'type';
  return 'use';
}

/**
 * The names the file uses: each distinct one (for the map's ranking), and each use with its line and kind (a
 * few per name), bounded. The walk is a cursor's, iterative: a deeply nested file costs no stack.
 */
export function extractUses(
  tree: Tree,
  spec: GrammarSpec,
  defs: readonly Pick<Definition, 'spans'>[] = [],
): { names: string[]; uses: Reference[] } {
  // Where the definitions' names start: a name found at the end of a declarator chain is not a use either.
  const defined = new Set(defs.map((def) => def.spans.at(-2)));
  const seen = new Set<string>();
  const perName = new Map<string, number>();
  const uses: Reference[] = [];
  const stack: Frame[] = [];
  let importing = 0;
  const cursor = tree.walk();
  try {
    let descend = true;
    for (;;) {
      if (descend) {
        const type = cursor.nodeType;
        const field = cursor.currentFieldName;
        const parent = stack.at(-1);
        const rule = parent ? spec.rules[parent.type] : undefined;
        // A definition's own name is not a use of it.
        const defining = (rule !== undefined && field === (rule.nameField ?? 'name')) || defined.has(cursor.startIndex);
        // A module named by its path (`from './router.js'`, Go's `"example.com/app/json"`): a use of the file's
        // stem, so "which files import the router module" is a lookup like any imported name.
        const pathNode = STRING_CONTENTS.has(type) || spec.modulePaths?.includes(type) === true;
        const imported = importing > 0 && !defining && pathNode ? moduleStem(cursor.nodeText) : undefined;
        if (imported !== undefined && uses.length < MAX_USES) {
          uses.push({ name: imported, line: cursor.startPosition.row + 1, kind: 'import' });
        }
        if (!defining && spec.references.includes(type)) {
          const text = cursor.nodeText;
          if (text.length >= 3 && text.length <= 80 && (!spec.referenceText || spec.referenceText.test(text))) {
            if (seen.size < MAX_REFS) seen.add(text);
            const count = perName.get(text) ?? 0;
            if (count < MAX_USES_PER_NAME && uses.length < MAX_USES) {
              perName.set(text, count + 1);
              uses.push({
                name: text,
                line: cursor.startPosition.row + 1,
                kind: useKind(type, field, stack, importing > 0),
              });
            }
            if (seen.size >= MAX_REFS && uses.length >= MAX_USES) break;
          }
        }
        const imports = IMPORTS.has(type) || importsByCall(cursor, spec, type);
        if (cursor.gotoFirstChild()) {
          stack.push({ type, field, imports });
          if (imports) importing++;
          continue;
        }
      }
      if (cursor.gotoNextSibling()) {
        descend = true;
        continue;
      }
      // Up until a parent has a next sibling.
      let moved = false;
      while (cursor.gotoParent()) {
        const left = stack.pop();
        if (left?.imports) importing--;
        if (cursor.gotoNextSibling()) {
          moved = true;
          break;
        }
      }
      if (!moved) break;
      descend = true;
    }
  } finally {
    cursor.delete();
  }
  return { names: [...seen], uses };
}
