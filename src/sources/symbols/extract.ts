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

import type { Node, Tree } from '@vscode/tree-sitter-wasm';
import type { DefKind, GrammarSpec } from './languages.ts';

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
  ) => {
    if (defs.length >= MAX_DEFS || depth > MAX_DEPTH) return;
    for (const child of node.namedChildren) {
      if (!child) continue;
      const type = child.type;
      const rule = spec.rules[type];
      if (rule) {
        const nameNode = child.childForFieldName(rule.nameField ?? 'name');
        let name = nameNode?.text;
        if (!nameNode || !name) continue;
        let nameAt: [number, number] = [nameNode.startIndex, nameNode.endIndex];
        if (type === 'impl_item') {
          name = plainTypeName(name);
          nameAt = plainTypeSpan(nameNode);
        }
        let qualifier = container;
        let qualifierAt = at;
        if (type === 'method_declaration' && child.childForFieldName('receiver')) {
          const receiver = goReceiver(child);
          qualifier = receiver
            ? child.text.slice(receiver[0] - child.startIndex, receiver[1] - child.startIndex)
            : undefined;
          qualifierAt = receiver ?? [];
        }
        const kind = memberKind && (rule.kind === 'function' || rule.kind === 'method') ? memberKind : rule.kind;
        // A Rust impl is not a definition of its own (the struct is); it only qualifies its methods.
        if (type !== 'impl_item') {
          add({
            name,
            qualified: qualifier ? `${qualifier}.${name}` : name,
            kind,
            line: child.startPosition.row + 1,
            endLine: child.endPosition.row + 1,
            depth,
            spans: [...qualifierAt, ...nameAt],
            ...signatureOf(child, rule.wholeLine ? '-' : rule.members),
          });
        }
        if (rule.members) {
          const body = child.childForFieldName(rule.members);
          const inner = qualifier && type !== 'impl_item' ? `${qualifier}.${name}` : name;
          const innerAt = qualifier && type !== 'impl_item' ? [...qualifierAt, ...nameAt] : nameAt;
          if (body) visit(body, inner, innerAt, rule.memberKind, type === 'impl_item' ? depth : depth + 1);
        }
        continue;
      }
      const declarator = spec.declarators[type];
      if (declarator && (!declarator.topOnly || container === undefined)) {
        for (const decl of child.namedChildren) {
          if (decl?.type !== declarator.declarator) continue;
          const nameNode = decl.childForFieldName('name') ?? decl.childForFieldName('left');
          if (nameNode?.type !== 'identifier') continue;
          const value = decl.childForFieldName('value') ?? decl.childForFieldName('right');
          const isFunction = value ? /function|arrow_function|lambda/.test(value.type) : false;
          add({
            name: nameNode.text,
            qualified: nameNode.text,
            kind: isFunction ? 'function' : declarator.kind,
            line: child.startPosition.row + 1,
            endLine: child.endPosition.row + 1,
            depth,
            spans: [nameNode.startIndex, nameNode.endIndex],
            ...signatureOf(child, isFunction ? undefined : '-'),
          });
        }
        continue;
      }
      if (spec.through.includes(type)) {
        // `export_statement`, decorators, Go's `type ( … )`: look through, same container.
        visit(child, container, at, memberKind, depth);
      } else if (container !== undefined && (type === 'class_body' || type === 'declaration_list')) {
        visit(child, container, at, memberKind, depth);
      }
    }
  };
  visit(tree.rootNode, undefined, [], undefined, 0);
  return defs;
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
]);
/** The text nodes of string literals in the shipped grammars (the quotes are their siblings). */
const STRING_CONTENTS = new Set(['string_fragment', 'string_content', 'interpreted_string_literal_content']);

/** Extensions a module path may end in: stripped, so `./router.js` and `json.h` name `router` and `json`. */
const MODULE_EXTENSION =
  /\.(?:[cm]?[jt]sx?|json|css|h|hh|hpp|zig|rb|lua|py|go|rs|hrl|erl|clj[cs]?|exs?|dart|vue|svelte)$/i;

/**
 * The name a module path gives its file: the last segment without its extension (a Go major version suffix
 * `v2` names its parent). Undefined when that is not a plain name.
 */
export function moduleStem(path: string): string | undefined {
  const segments = path.replace(MODULE_EXTENSION, '').split(/[\\/]/).filter(Boolean);
  let stem = segments.pop();
  if (stem !== undefined && /^v\d+$/.test(stem)) stem = segments.pop();
  return stem !== undefined && /^[A-Za-z_$][\w$-]{1,79}$/.test(stem) ? stem : undefined;
}

/** Calls and constructions, with the fields that hold what is called. */
const CALLS: Record<string, readonly string[]> = {
  call_expression: ['function'],
  call: ['function'],
  new_expression: ['constructor'],
  method_invocation: ['name'],
  object_creation_expression: ['type'],
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
};

interface Frame {
  type: string;
  field: string | null;
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
export function extractUses(tree: Tree, spec: GrammarSpec): { names: string[]; uses: Reference[] } {
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
        const defining = rule !== undefined && field === (rule.nameField ?? 'name');
        // A module named by its path (`from './router.js'`, Go's `"example.com/app/json"`): a use of the file's
        // stem, so "which files import the router module" is a lookup like any imported name.
        const imported =
          importing > 0 && !defining && STRING_CONTENTS.has(type) ? moduleStem(cursor.nodeText) : undefined;
        if (imported !== undefined && uses.length < MAX_USES) {
          uses.push({ name: imported, line: cursor.startPosition.row + 1, kind: 'import' });
        }
        if (!defining && spec.references.includes(type)) {
          const text = cursor.nodeText;
          if (text.length >= 3 && text.length <= 80) {
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
        if (cursor.gotoFirstChild()) {
          stack.push({ type, field });
          if (IMPORTS.has(type)) importing++;
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
        if (left && IMPORTS.has(left.type)) importing--;
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
