// The symbol index's parser side (issue 13, item 2): per language, the
// definitions tree-sitter finds, with their qualified names, line ranges and
// signatures (golden), and what the admission check refuses.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { refusedByContent, refusedByName } from '../../../src/sources/symbols/admit.ts';
import { extractDefinitions, extractReferences } from '../../../src/sources/symbols/extract.ts';
import { loadGrammar, parseWithin } from '../../../src/sources/symbols/grammars.ts';
import { type Grammar, grammarOf, SPECS } from '../../../src/sources/symbols/languages.ts';

async function outline(grammar: Grammar, text: string): Promise<string[]> {
  const loaded = await loadGrammar(grammar);
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.reason);
  const tree = parseWithin(loaded.parser, text, 5_000);
  assert.ok(tree);
  try {
    return extractDefinitions(tree, SPECS[grammar]).map(
      (d) => `${'  '.repeat(d.depth)}${d.kind} ${d.qualified} ${d.line}-${d.endLine} | ${d.signature}`,
    );
  } finally {
    tree.delete();
  }
}

describe('definitions per language (golden)', () => {
  test('TypeScript: classes and methods, interfaces, types, enums, exported consts and arrow functions', async () => {
    const text = [
      "import { Base } from './base';",
      'export class OrderService extends Base {',
      '  private total = 0;',
      '  async create(order: Order): Promise<void> {',
      '    this.total++;',
      '  }',
      '}',
      'export interface Rate { value: number }',
      'export type Id = string | number;',
      'export enum Color { Red }',
      'export const parseInvoice = (text: string): Invoice => JSON.parse(text);',
      'const MAX_RETRIES = 3;',
      'function helper(a: number) {',
      '  const inner = 1;',
      '  return a + inner;',
      '}',
    ].join('\n');
    assert.deepEqual(await outline('typescript', text), [
      'class OrderService 2-7 | class OrderService extends Base',
      '  method OrderService.create 4-6 | async create(order: Order): Promise<void>',
      'interface Rate 8-8 | interface Rate',
      'type Id 9-9 | type Id = string | number;',
      'enum Color 10-10 | enum Color',
      'function parseInvoice 11-11 | const parseInvoice = (text: string): Invoice => JSON.parse(text);',
      'const MAX_RETRIES 12-12 | const MAX_RETRIES = 3;',
      'function helper 13-16 | function helper(a: number)',
    ]);
  });

  test('TSX and JavaScript', async () => {
    assert.deepEqual(await outline('tsx', 'export function App({ name }: Props) {\n  return <div>{name}</div>;\n}\n'), [
      'function App 1-3 | function App({ name }: Props)',
    ]);
    assert.deepEqual(await outline('javascript', 'export function run(a, b) { return a + b; }\nclass K { m() {} }\n'), [
      'function run 1-1 | function run(a, b)',
      'class K 2-2 | class K',
      '  method K.m 2-2 | m()',
    ]);
  });

  test('Python: module constants, classes with methods (decorated too), functions (nested ones are not definitions)', async () => {
    const text = [
      'MAX_RETRIES = 5',
      'class OrderService(Base):',
      '    def create(self, order: Order) -> None:',
      '        pass',
      '    @staticmethod',
      '    def of():',
      '        return 1',
      '',
      '@decorator',
      'def parse_invoice(text: str) -> dict:',
      '    def inner():',
      '        pass',
      '    return {}',
    ].join('\n');
    assert.deepEqual(await outline('python', text), [
      'variable MAX_RETRIES 1-1 | MAX_RETRIES = 5',
      'class OrderService 2-7 | class OrderService(Base)',
      '  method OrderService.create 3-4 | def create(self, order: Order) -> None',
      '  method OrderService.of 6-7 | def of()',
      'function parse_invoice 10-13 | def parse_invoice(text: str) -> dict',
    ]);
  });

  test('Go: consts, types, functions and methods qualified by their receiver', async () => {
    const text = [
      'package billing',
      'const MaxRetries = 3',
      'type Store struct { m map[string]int }',
      'func (s *Store) Get(key string) (int, error) {',
      '\treturn s.m[key], nil',
      '}',
      'func NewStore() *Store { return &Store{} }',
    ].join('\n');
    assert.deepEqual(await outline('go', text), [
      'const MaxRetries 2-2 | const MaxRetries = 3',
      'type Store 3-3 | Store struct { m map[string]int }',
      'method Store.Get 4-6 | func (s *Store) Get(key string) (int, error)',
      'function NewStore 7-7 | func NewStore() *Store',
    ]);
  });

  test('Rust: structs, enums, traits, impl methods (generic and trait impls too), consts', async () => {
    const text = [
      'pub struct Rates { v: f64 }',
      'pub enum Kind { A, B }',
      'pub trait Pricer { fn price(&self) -> f64; }',
      'impl<T> fmt::Display for Rates<T> {',
      '    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }',
      '}',
      'impl Rates { pub fn new(v: f64) -> Self { Rates { v } } }',
      'pub fn compute(x: i32) -> i32 { x }',
      'const MAX: u32 = 3;',
    ].join('\n');
    assert.deepEqual(await outline('rust', text), [
      'struct Rates 1-1 | pub struct Rates',
      'enum Kind 2-2 | pub enum Kind',
      'trait Pricer 3-3 | pub trait Pricer',
      '  method Pricer.price 3-3 | fn price(&self) -> f64;',
      'method Rates.fmt 5-5 | fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result',
      'method Rates.new 7-7 | pub fn new(v: f64) -> Self',
      'function compute 8-8 | pub fn compute(x: i32) -> i32',
      'const MAX 9-9 | const MAX: u32 = 3;',
    ]);
  });

  test('Java: classes, constructors, methods, nested classes, interfaces', async () => {
    const text = [
      'package a;',
      'public class OrderService {',
      '  public OrderService() {}',
      '  public void create(Order o) throws Exception {',
      '  }',
      '  static class Inner { void go() {} }',
      '}',
      'interface Repo { List<String> all(); }',
    ].join('\n');
    assert.deepEqual(await outline('java', text), [
      'class OrderService 2-7 | public class OrderService',
      '  method OrderService.OrderService 3-3 | public OrderService()',
      '  method OrderService.create 4-5 | public void create(Order o) throws Exception',
      '  class OrderService.Inner 6-6 | static class Inner',
      '    method OrderService.Inner.go 6-6 | void go()',
      'interface Repo 8-8 | interface Repo',
      '  method Repo.all 8-8 | List<String> all();',
    ]);
  });

  test('references are the identifiers a file uses', async () => {
    const loaded = await loadGrammar('python');
    assert.ok(loaded.ok);
    const tree = parseWithin(loaded.parser, 'from rates import compute_rate\nx = compute_rate(ledger)\n', 5_000);
    assert.ok(tree);
    assert.deepEqual(extractReferences(tree, SPECS.python).sort(), ['compute_rate', 'ledger', 'rates']);
    tree.delete();
  });

  test('a grammar that cannot be loaded is a reason, not an exception', async () => {
    const loaded = await loadGrammar('go', () => '/nonexistent/tree-sitter-go.wasm');
    assert.equal(loaded.ok, false);
    assert.match(loaded.ok ? '' : loaded.reason, /grammar failed to load/);
  });
});

describe('which files are parsed', () => {
  test('grammars by extension; other files have none', () => {
    assert.equal(grammarOf('src/a.ts'), 'typescript');
    assert.equal(grammarOf('src/App.tsx'), 'tsx');
    assert.equal(grammarOf('lib/x.mjs'), 'javascript');
    assert.equal(grammarOf('billing/rates.py'), 'python');
    assert.equal(grammarOf('main.go'), 'go');
    assert.equal(grammarOf('src/lib.rs'), 'rust');
    assert.equal(grammarOf('A.java'), 'java');
    assert.equal(grammarOf('README.md'), undefined);
    assert.equal(grammarOf('.ts'), undefined);
  });

  test('lockfiles, bundles and generated names are refused before reading', () => {
    assert.equal(refusedByName('package-lock.json'), 'lockfile');
    assert.equal(refusedByName('web/app.min.js'), 'generated (by its name)');
    assert.equal(refusedByName('api/service_pb2.py'), 'generated (by its name)');
    assert.equal(refusedByName('api/service.pb.go'), 'generated (by its name)');
    assert.equal(refusedByName('src/app.ts'), undefined);
  });

  test('binary, @generated and minified content is refused', () => {
    assert.equal(refusedByContent('abc\0def'), 'binary');
    assert.equal(refusedByContent('// @generated by protoc\nexport const a = 1;\n'), 'generated (@generated)');
    assert.equal(refusedByContent('// Code generated by mockgen. DO NOT EDIT.\npackage x\n'), 'generated (@generated)');
    assert.match(refusedByContent(`var a=${'1+'.repeat(2000)}1;`) ?? '', /minified/);
    assert.equal(refusedByContent('export const a = 1;\n'), undefined);
    // Past the head too, once long lines add up (a bundle appended to a hand-written file), not for one.
    const head = 'const a = 1;\n'.repeat(1_000);
    assert.match(refusedByContent(`${head}${`var b=${'1+'.repeat(100_000)}1;\n`}`) ?? '', /minified/);
    assert.equal(refusedByContent(`${head}const table = "${'x'.repeat(5_000)}";\n`), undefined);
  });
});
