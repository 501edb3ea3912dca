// Which grammar parses which file, and which syntax nodes of each grammar are
// definitions. One table per grammar: the walker (extract.ts) is generic, so a
// language is a few lines of data here, not code.

import { byExtension } from '../byExtension.ts';

/** A grammar shipped in @vscode/tree-sitter-wasm. */
export type Grammar = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java';

/** The kinds of definition, in a fixed order (the stored index keeps a kind as its place here). */
export const DEF_KINDS = [
  'function',
  'class',
  'method',
  'interface',
  'type',
  'enum',
  'const',
  'variable',
  'struct',
  'trait',
  'module',
] as const;

export type DefKind = (typeof DEF_KINDS)[number];

/** How one node type is read. */
export interface NodeRule {
  kind: DefKind;
  /** Field holding the name (default `name`). */
  nameField?: string;
  /** Field whose children are definitions qualified by this one's name (`Class.method`). */
  members?: string;
  /** Kind the members get (`method` for class bodies). */
  memberKind?: DefKind;
  /** The signature is the first line (a type alias's value is what it says). */
  wholeLine?: boolean;
}

export interface GrammarSpec {
  /** Definition node types. */
  rules: Record<string, NodeRule>;
  /** Node types looked through (their children may be definitions): `export_statement`, `decorated_definition`. */
  through: readonly string[];
  /** Declaration lists whose declarators carry the names (`const a = 1, b = 2`). */
  declarators: Record<string, { declarator: string; kind: DefKind; topOnly: boolean }>;
  /** Leaf node types that name things, counted as references for the repository map. */
  references: readonly string[];
}

/** A class-like definition whose body holds its methods (`Class.method`). */
function withMethods(kind: DefKind): NodeRule {
  return { kind, members: 'body', memberKind: 'method' };
}

const ecmaRules: Record<string, NodeRule> = {
  function_declaration: { kind: 'function' },
  generator_function_declaration: { kind: 'function' },
  class_declaration: withMethods('class'),
  abstract_class_declaration: withMethods('class'),
  class: withMethods('class'),
  method_definition: { kind: 'method' },
  abstract_method_signature: { kind: 'method' },
  interface_declaration: { kind: 'interface' },
  type_alias_declaration: { kind: 'type', wholeLine: true },
  enum_declaration: { kind: 'enum' },
  internal_module: { kind: 'module', members: 'body' },
};

const ecma: GrammarSpec = {
  rules: ecmaRules,
  through: ['export_statement', 'program', 'statement_block', 'ambient_declaration'],
  declarators: {
    lexical_declaration: { declarator: 'variable_declarator', kind: 'const', topOnly: true },
    variable_declaration: { declarator: 'variable_declarator', kind: 'variable', topOnly: true },
  },
  references: ['identifier', 'type_identifier', 'property_identifier', 'shorthand_property_identifier'],
};

const python: GrammarSpec = {
  rules: {
    function_definition: { kind: 'function' },
    class_definition: withMethods('class'),
  },
  through: ['decorated_definition', 'module', 'block'],
  declarators: {
    expression_statement: { declarator: 'assignment', kind: 'variable', topOnly: true },
  },
  references: ['identifier'],
};

const go: GrammarSpec = {
  rules: {
    function_declaration: { kind: 'function' },
    method_declaration: { kind: 'method' },
    type_spec: { kind: 'type' },
    type_alias: { kind: 'type', wholeLine: true },
  },
  through: ['source_file', 'type_declaration'],
  declarators: {
    const_declaration: { declarator: 'const_spec', kind: 'const', topOnly: true },
    var_declaration: { declarator: 'var_spec', kind: 'variable', topOnly: true },
  },
  references: ['identifier', 'type_identifier', 'field_identifier'],
};

const rust: GrammarSpec = {
  rules: {
    function_item: { kind: 'function' },
    function_signature_item: { kind: 'method' },
    struct_item: { kind: 'struct' },
    enum_item: { kind: 'enum' },
    union_item: { kind: 'struct' },
    trait_item: withMethods('trait'),
    impl_item: { ...withMethods('class'), nameField: 'type' },
    type_item: { kind: 'type', wholeLine: true },
    const_item: { kind: 'const', wholeLine: true },
    static_item: { kind: 'variable', wholeLine: true },
    mod_item: { kind: 'module', members: 'body' },
    macro_definition: { kind: 'function' },
  },
  through: ['source_file', 'declaration_list'],
  declarators: {},
  references: ['identifier', 'type_identifier', 'field_identifier'],
};

const java: GrammarSpec = {
  rules: {
    class_declaration: withMethods('class'),
    interface_declaration: withMethods('interface'),
    enum_declaration: withMethods('enum'),
    record_declaration: withMethods('class'),
    annotation_type_declaration: { kind: 'interface' },
    method_declaration: { kind: 'method' },
    constructor_declaration: { kind: 'method' },
  },
  through: ['program', 'enum_body_declarations'],
  declarators: {},
  references: ['identifier', 'type_identifier'],
};

export const SPECS: Record<Grammar, GrammarSpec> = {
  typescript: ecma,
  tsx: ecma,
  javascript: ecma,
  python,
  go,
  rust,
  java,
};

const BY_EXTENSION: Record<string, Grammar> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.jsx': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
};

/** The grammar for a path, by extension; undefined for other files. */
export function grammarOf(rel: string): Grammar | undefined {
  return byExtension(BY_EXTENSION, rel);
}

/** Source files of other languages: found by the word search only. */
const OTHER_CODE =
  /\.(c|h|cc|cpp|cxx|hpp|hh|cs|rb|php|kt|kts|scala|swift|m|mm|lua|pl|pm|r|jl|ex|exs|erl|hs|ml|clj|dart|vue|svelte|sh|bash|zsh|sql|groovy|gradle|zig|nim|fs|fsx|vb)$/i;

export function isOtherCode(rel: string): boolean {
  return grammarOf(rel) === undefined && OTHER_CODE.test(rel);
}
