// Which grammar parses which file, and which syntax nodes of each grammar are
// definitions. One table per grammar: the walker (extract.ts) is generic, so a
// language is a few lines of data here, not code.

import { byExtension } from '../byExtension.ts';

/** A grammar shipped in @vscode/tree-sitter-wasm. */
export type Grammar =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'cpp'
  | 'c-sharp'
  | 'ruby'
  | 'php'
  | 'bash';

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
  /**
   * The name is at the end of the C declarator chain (`declarator` fields: `*f(int)`, `Class::f()`), not in a
   * field of its own; `function`: only when the chain holds a function declarator (a method's declaration
   * in a class body, not a field).
   */
  declarator?: 'any' | 'function';
  /** The name node must be one of these types (Ruby's `X = 1` is a constant only when `X` is one). */
  nameTypes?: readonly string[];
  /** A definition only with this field present (`struct a { … }`, not the type use `struct a x;`). */
  needs?: string;
  /**
   * How its members are qualified: `none` (a C++, C# or PHP namespace: `Class.method`, as the question
   * spells it, not `ns.Class.method`), `own` (a Ruby module or class: by this name alone, the way Ruby code
   * names it, `Utils.escape` inside `module Rack`). Default: by the whole chain (`Outer.Inner.method`).
   */
  scope?: 'none' | 'own';
}

export interface GrammarSpec {
  /** Definition node types. */
  rules: Record<string, NodeRule>;
  /** Node types looked through (their children may be definitions): `export_statement`, `decorated_definition`. */
  through: readonly string[];
  /**
   * Declaration lists whose declarators carry the names (`const a = 1, b = 2`); `within`: the list node between
   * (C#'s field holds a `variable_declaration`); `constWhen`: const, else `kind`; `onlyWhen`: a definition only
   * when the declaration's head reads so (a C# field only when `const`). In a class, qualified by it.
   */
  declarators: Record<
    string,
    { declarator: string; kind: DefKind; topOnly: boolean; within?: string; constWhen?: RegExp; onlyWhen?: RegExp }
  >;
  /** Leaf node types that name things, counted as references for the repository map. */
  references: readonly string[];
  /** A reference's text must look like this (shell words are names only when they look like one). */
  referenceText?: RegExp;
  /** Calls that import (`require 'x'`, `source x.sh`): the node type, the field naming the callee, the names. */
  importCalls?: { node: string; field: string; names: readonly string[] };
  /** Node types, besides string contents, that hold a module path inside an import (`<vector>`, a shell word). */
  modulePaths?: readonly string[];
  /**
   * Text the grammar cannot read, blanked (spaces, so offsets and lines stay) before the parse: C and C++
   * macros in declaration position (`FMT_API void f()`, a line of `FMT_BEGIN_NAMESPACE`), which tree-sitter
   * takes for types and then misreads the declarations around them. Group 1 is kept, group 2 blanked; each
   * pattern is anchored and linear in the line's length.
   */
  masks?: readonly RegExp[];
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

/**
 * C++, and C (the cpp grammar parses C as the C subset it is: measured on hiredis, see the test). Functions
 * are named at the end of their declarator chain; an out-of-line `Class::method` is qualified by its class;
 * a class body's method declarations are definitions (a header is where the API is read); namespaces do
 * not qualify (questions say `Class::method`, not `ns::Class::method`); macros are functions and constants.
 */
const cpp: GrammarSpec = {
  rules: {
    function_definition: { kind: 'function', declarator: 'function' },
    field_declaration: { kind: 'method', declarator: 'function' },
    class_specifier: { ...withMethods('class'), needs: 'body' },
    struct_specifier: { ...withMethods('struct'), needs: 'body' },
    union_specifier: { ...withMethods('struct'), needs: 'body' },
    enum_specifier: { kind: 'enum', needs: 'body' },
    namespace_definition: { kind: 'module', members: 'body', scope: 'none' },
    alias_declaration: { kind: 'type', wholeLine: true },
    type_definition: { kind: 'type', declarator: 'any', wholeLine: true },
    concept_definition: { kind: 'type', wholeLine: true },
    preproc_def: { kind: 'const', wholeLine: true },
    preproc_function_def: { kind: 'function', wholeLine: true },
  },
  through: [
    'translation_unit',
    'template_declaration',
    'linkage_specification',
    'declaration_list',
    'preproc_ifdef',
    'preproc_if',
    'preproc_else',
    'preproc_elif',
    'preproc_elifdef',
    // What the grammar could not place (a macro it took for code, `#if` branches that split a declaration)
    // still holds whole definitions.
    'ERROR',
  ],
  declarators: {
    declaration: {
      declarator: 'init_declarator',
      kind: 'variable',
      topOnly: true,
      constWhen: /^(?:(?:static|inline|extern|export)\s+)*(?:constexpr|constinit|const)\b/,
    },
  },
  references: ['identifier', 'type_identifier', 'field_identifier', 'namespace_identifier'],
  modulePaths: ['system_lib_string'],
  masks: [
    // `FMT_CONSTEXPR FMT_INLINE auto f()`, `FMT_BEGIN_NAMESPACE` alone: upper-case names with an underscore
    // at the start of a line, before a word or the line's end (a call `FOO_BAR(x)` or `X_Y = 1` stays).
    /^([ \t]*)((?:[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+)+(?=[A-Za-z_~])|[A-Z][A-Z0-9]*_[A-Z0-9_]*(?=[ \t]*$))/gm,
    // `class FMT_API format_error`, `struct Q_CORE_EXPORT QString`.
    /\b((?:class|struct|union)[ \t]+)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]+[A-Za-z_])/g,
  ],
};

const csharp: GrammarSpec = {
  rules: {
    class_declaration: withMethods('class'),
    struct_declaration: withMethods('struct'),
    record_declaration: withMethods('class'),
    interface_declaration: withMethods('interface'),
    enum_declaration: { kind: 'enum' },
    delegate_declaration: { kind: 'type' },
    method_declaration: { kind: 'method' },
    constructor_declaration: { kind: 'method' },
    property_declaration: { kind: 'variable', wholeLine: true },
    namespace_declaration: { kind: 'module', members: 'body', scope: 'none' },
    file_scoped_namespace_declaration: { kind: 'module', wholeLine: true },
  },
  through: ['compilation_unit', 'preproc_if', 'preproc_else', 'preproc_elif', 'preproc_region', 'ERROR'],
  declarators: {
    // `const int MaxDepth = 10;`, `static readonly TimeSpan Default = …;`: constants; other fields are state.
    field_declaration: {
      declarator: 'variable_declarator',
      within: 'variable_declaration',
      kind: 'const',
      topOnly: false,
      onlyWhen: /^(?:\[[^\]\n]*\]\s*)*(?:\w+\s+)*?(?:const|static\s+readonly|readonly\s+static)\b/,
    },
  },
  references: ['identifier'],
};

const ruby: GrammarSpec = {
  rules: {
    // The first line is the signature: a Ruby body starts after the comments under the `def`.
    class: { ...withMethods('class'), scope: 'own', wholeLine: true },
    module: { ...withMethods('module'), scope: 'own', wholeLine: true },
    method: { kind: 'function', wholeLine: true },
    singleton_method: { kind: 'function', wholeLine: true },
    assignment: { kind: 'const', nameField: 'left', nameTypes: ['constant'], wholeLine: true },
  },
  // Methods defined under a condition (`if defined?(…)`) and in blocks (`describe … do def helper`).
  through: [
    'program',
    'body_statement',
    'singleton_class',
    'if',
    'unless',
    'else',
    'elsif',
    'then',
    'begin',
    'call',
    'do_block',
    'block',
    'block_body',
    'ERROR',
  ],
  declarators: {},
  references: ['identifier', 'constant'],
  importCalls: { node: 'call', field: 'method', names: ['require', 'require_relative', 'load', 'autoload'] },
};

const php: GrammarSpec = {
  rules: {
    function_definition: { kind: 'function' },
    class_declaration: withMethods('class'),
    interface_declaration: withMethods('interface'),
    trait_declaration: withMethods('trait'),
    enum_declaration: withMethods('enum'),
    method_declaration: { kind: 'method' },
    namespace_definition: { kind: 'module', members: 'body', scope: 'none' },
  },
  through: ['program', 'compound_statement', 'ERROR'],
  declarators: {
    const_declaration: { declarator: 'const_element', kind: 'const', topOnly: false },
  },
  references: ['name'],
};

const bash: GrammarSpec = {
  rules: {
    function_definition: { kind: 'function' },
    variable_assignment: { kind: 'variable', wholeLine: true },
  },
  // Functions defined under a condition or inside the `{ … }` that guards a script read while downloaded.
  through: [
    'program',
    'declaration_command',
    'compound_statement',
    'if_statement',
    'elif_clause',
    'else_clause',
    'case_statement',
    'case_item',
    'ERROR',
  ],
  declarators: {},
  references: ['word', 'variable_name'],
  referenceText: /^[A-Za-z_][\w-]*$/,
  importCalls: { node: 'command', field: 'name', names: ['source', '.'] },
  modulePaths: ['word'],
};

export const SPECS: Record<Grammar, GrammarSpec> = {
  typescript: ecma,
  tsx: ecma,
  javascript: ecma,
  python,
  go,
  rust,
  java,
  cpp,
  'c-sharp': csharp,
  ruby,
  php,
  bash,
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
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.ipp': 'cpp',
  '.c': 'cpp',
  '.h': 'cpp',
  '.cs': 'c-sharp',
  '.rb': 'ruby',
  '.rake': 'ruby',
  '.gemspec': 'ruby',
  '.php': 'php',
  '.sh': 'bash',
  '.bash': 'bash',
};

/** Files known by their whole name (no extension says their language). */
const BY_NAME: Record<string, Grammar> = {
  Rakefile: 'ruby',
  Gemfile: 'ruby',
  Guardfile: 'ruby',
  Capfile: 'ruby',
  Vagrantfile: 'ruby',
};

/** The grammar for a path, by extension; undefined for other files. */
export function grammarOf(rel: string): Grammar | undefined {
  return byExtension(BY_EXTENSION, rel) ?? BY_NAME[rel.slice(rel.lastIndexOf('/') + 1)];
}

/** Source files of other languages: found by the word search only. */
const OTHER_CODE =
  /\.(c|h|cc|cpp|cxx|hpp|hh|cs|rb|php|kt|kts|scala|swift|m|mm|lua|pl|pm|r|jl|ex|exs|erl|hs|ml|clj|dart|vue|svelte|sh|bash|zsh|sql|groovy|gradle|zig|nim|fs|fsx|vb)$/i;

export function isOtherCode(rel: string): boolean {
  return grammarOf(rel) === undefined && OTHER_CODE.test(rel);
}
