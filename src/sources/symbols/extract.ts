// Definitions and references of one parsed file. Walks the syntax tree with
// the grammar's table (languages.ts): definition nodes give a name, a line
// range and a signature (the text before the body, on one line); class-like
// bodies give `Class.method`. References are the identifiers used, for the
// repository map's ranking.

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
}

const MAX_SIGNATURE = 200;
/** Definitions kept per file (a generated table of 10,000 constants is not an outline). */
const MAX_DEFS = 400;
/** Distinct referenced names kept per file. */
const MAX_REFS = 600;
/** How deep containers are looked into (`mod a { mod b { impl C { fn d } } }`). */
const MAX_DEPTH = 4;

/**
 * The header of a definition: its text before the body (`bodyField`; `-` for
 * none: the first line), whitespace collapsed, bounded.
 */
function signatureOf(node: Node, bodyField: string | undefined): string {
  const body =
    bodyField === '-' ? null : (node.childForFieldName(bodyField ?? 'body') ?? node.childForFieldName('value'));
  const text = node.text;
  const end = body && body.startIndex > node.startIndex ? body.startIndex - node.startIndex : text.length;
  // Only the first lines: a long object literal's value is not part of the signature.
  let head = text.slice(0, Math.min(end, 600));
  const newline = head.indexOf('\n');
  if (!body && newline !== -1) head = head.slice(0, newline);
  let flat = head.replace(/\s+/g, ' ').trim();
  // The opening of the body that was cut off (`{`, `:` of a Python def, `=` of an arrow function).
  if (body) flat = flat.replace(/\s*(\{|:|=>?)$/, '');
  return flat.length > MAX_SIGNATURE ? `${flat.slice(0, MAX_SIGNATURE - 1)}…` : flat;
}

/** A Go method's receiver type: `func (s *Store) Get()` → `Store`. */
function goReceiver(node: Node): string | undefined {
  const receiver = node.childForFieldName('receiver');
  const match = receiver ? /\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)$/.exec(receiver.text) : null;
  return match?.[1];
}

/** A Rust impl's type name without generics or paths: `impl<T> Trait for foo::Bar<T>` → `Bar`. */
function plainTypeName(text: string): string {
  const base = text.replace(/<.*$/s, '');
  return base.split('::').at(-1)?.trim() ?? base;
}

export function extractDefinitions(tree: Tree, spec: GrammarSpec): Definition[] {
  const defs: Definition[] = [];
  const add = (def: Definition) => {
    if (defs.length < MAX_DEFS) defs.push(def);
  };

  const visit = (node: Node, container: string | undefined, memberKind: DefKind | undefined, depth: number) => {
    if (defs.length >= MAX_DEFS || depth > MAX_DEPTH) return;
    for (const child of node.namedChildren) {
      if (!child) continue;
      const type = child.type;
      const rule = spec.rules[type];
      if (rule) {
        const nameNode = child.childForFieldName(rule.nameField ?? 'name');
        let name = nameNode?.text;
        if (name && type === 'impl_item') name = plainTypeName(name);
        if (!name) continue;
        let qualifier = container;
        if (type === 'method_declaration' && child.childForFieldName('receiver')) qualifier = goReceiver(child);
        const kind = memberKind && (rule.kind === 'function' || rule.kind === 'method') ? memberKind : rule.kind;
        // A Rust impl is not a definition of its own (the struct is); it only qualifies its methods.
        if (type !== 'impl_item') {
          add({
            name,
            qualified: qualifier ? `${qualifier}.${name}` : name,
            kind,
            line: child.startPosition.row + 1,
            endLine: child.endPosition.row + 1,
            signature: signatureOf(child, rule.wholeLine ? '-' : rule.members),
            depth,
          });
        }
        if (rule.members) {
          const body = child.childForFieldName(rule.members);
          const inner = qualifier && type !== 'impl_item' ? `${qualifier}.${name}` : name;
          if (body) visit(body, inner, rule.memberKind, type === 'impl_item' ? depth : depth + 1);
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
            signature: signatureOf(child, isFunction ? undefined : '-'),
            depth,
          });
        }
        continue;
      }
      if (spec.through.includes(type)) {
        // `export_statement`, decorators, Go's `type ( … )`: look through, same container.
        visit(child, container, memberKind, depth);
      } else if (container !== undefined && (type === 'class_body' || type === 'declaration_list')) {
        visit(child, container, memberKind, depth);
      }
    }
  };
  visit(tree.rootNode, undefined, undefined, 0);
  return defs;
}

/** Distinct identifiers the file uses (at least three characters), bounded. */
export function extractReferences(tree: Tree, spec: GrammarSpec): string[] {
  const seen = new Set<string>();
  const cursor = tree.walk();
  try {
    let descend = true;
    for (;;) {
      if (descend && cursor.gotoFirstChild()) continue;
      const type = cursor.nodeType;
      if (spec.references.includes(type)) {
        const text = cursor.nodeText;
        if (text.length >= 3 && text.length <= 80) {
          seen.add(text);
          if (seen.size >= MAX_REFS) break;
        }
      }
      if (cursor.gotoNextSibling()) {
        descend = true;
        continue;
      }
      // Up until a parent has a next sibling.
      let moved = false;
      while (cursor.gotoParent()) {
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
  return [...seen];
}
