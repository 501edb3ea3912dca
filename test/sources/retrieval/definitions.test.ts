// Which lines define a name, in the languages people ask about: the shape
// retrieval ranks first (its whole block) over a mention.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { definitionTest } from '../../../src/sources/retrieval/regions.ts';

describe('definition lines', () => {
  const defines = definitionTest(['parse_args', 'render']);

  test('definitions in C, C++, Kotlin, Elixir, Perl, Swift, Ruby and PHP', () => {
    for (const line of [
      'static int parse_args(int argc, char **argv)',
      'void *render(struct ctx *c) {',
      'char *Printer::render(int width)',
      'fun render(x: Int): String {',
      '  defp render(conn) do',
      'sub render {',
      'func render(_ view: View) -> String {',
      '  def self.render(template)',
      '    public function render(array $data): string',
    ]) {
      assert.ok(defines(line), line);
    }
  });

  test("definitions by assignment at the margin: R's <-, a one-line definition with its parameters (Julia)", () => {
    for (const line of [
      'parse_args <- function(x, ...) {',
      'render <<- function(view) view',
      'render(io, x) = print(io, x)',
      'parse_args(args::Vector{String}) = Dict(args)',
    ]) {
      assert.ok(defines(line), line);
    }
  });

  test('calls, statements and prototypes are not definitions', () => {
    for (const line of [
      'return parse_args(x);',
      '  parse_args(a, b);',
      'int parse_args(int);',
      '    if (render(x)) {',
      'out <- render(view)',
      'render(x) == expected',
      'render(x) => x',
    ]) {
      assert.equal(defines(line), undefined, line);
    }
  });
});
