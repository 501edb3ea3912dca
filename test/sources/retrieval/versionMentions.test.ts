// A version question about a tool or runtime that the manifest writes as one
// part of a longer key (`cmake_minimum_required(VERSION …)`,
// `.minimum_zig_version = …`, `{minimum_otp_vsn, …}`), in any ecosystem: the
// line naming it with a version is found and sent, by one rule and a table of
// manifest file names (rules/manifests.json), not a case per language.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadManifestFiles, MANIFEST_FILES } from '../../../src/sources/retrieval/manifestFiles.ts';
import { shortNames, statesVersionOf, versionSubjects } from '../../../src/sources/retrieval/versionMentions.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { askRetrieval, retrievalSource } from './ask.ts';

describe('version lines: a tool named as a part of a key, with a version beside it', () => {
  test('the subjects are the words that name something, not the words a version question is phrased with', () => {
    assert.deepEqual(versionSubjects(['minimum', 'Zig', 'version', 'project', 'supports']), ['zig']);
    assert.deepEqual(versionSubjects(['which', 'OTP', 'release', 'does', 'need']), ['otp']);
  });

  test('a runtime named by one or two capitals is a subject; a capitalised English word is not', () => {
    assert.deepEqual(shortNames("What's the minimum R version this project supports?"), ['R']);
    assert.deepEqual(shortNames('Which C++ standard and which Go release does it need?'), ['C++', 'Go']);
    assert.deepEqual(shortNames('Is F# supported? It says so in the docs.'), ['F#']);
    assert.deepEqual(shortNames("A question I ask: does it build? Don't know."), []);
    assert.deepEqual(versionSubjects(['R', 'minimum']), ['r']);
  });

  test('a part of an identifier with a version beside it states the version', () => {
    assert.ok(statesVersionOf(['cmake'])('cmake_minimum_required(VERSION 3.8...3.28)'));
    assert.ok(statesVersionOf(['zig'])('    .minimum_zig_version = "0.14.0",'));
    assert.ok(statesVersionOf(['otp'])('{minimum_otp_vsn, "22.0"}.'));
    assert.ok(statesVersionOf(['clojure'])('  :dependencies [[org.clojure/clojure "1.11.1"]]'));
    assert.ok(statesVersionOf(['ocaml'])('  (ocaml (>= 4.08))'));
  });

  test('a name inside a longer word, or a line without a version, does not', () => {
    assert.equal(statesVersionOf(['zig'])('zigzag = "1.0"'), false);
    assert.equal(statesVersionOf(['zig'])('    .version = "0.15.0",'), false);
    assert.equal(statesVersionOf(['cmake'])('set(CMAKE_CXX_STANDARD 17)'), false);
    assert.equal(statesVersionOf([])('cmake_minimum_required(VERSION 3.8)'), false);
  });

  test('the manifest table matches file names at any depth, and nothing else', () => {
    for (const rel of ['DESCRIPTION', 'pkg/yojson.opam', 'build.zig.zon', 'sub/Package@swift-5.9.swift', 'cpanfile'])
      assert.ok(MANIFEST_FILES.test(rel), rel);
    for (const rel of ['src/main.rs', 'DESCRIPTION.md', 'docs/opam', 'Cargo.toml.orig'])
      assert.equal(MANIFEST_FILES.test(rel), false, rel);
    assert.ok(MANIFEST_FILES.pathspecs.includes(':(glob)**/Cargo.toml'));
  });

  test('a malformed table fails with its name: a path where a file name belongs', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifests-'));
    const file = path.join(dir, 'manifests.json');
    writeFileSync(file, JSON.stringify({ description: 'x', files: ['sub/Cargo.toml'] }));
    try {
      assert.throws(() => loadManifestFiles(file), /manifests\.json: \[files\.0\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('retrieval: the minimum version of a tool, in manifests of any ecosystem', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = (content: string) => askRetrieval(source, repo.dir, content);

  before(() => {
    // Many lines name cmake before the one that states its minimum; the build file of a tool no table knows
    // states its version at the root.
    const cmake = Array.from({ length: 40 }, (_, i) => `include(\${CMAKE_CURRENT_LIST_DIR}/cmake/part${i}.cmake)`);
    repo = makeRepo({
      files: {
        'CMakeLists.txt': `${cmake.join('\n')}\ncmake_minimum_required(VERSION 3.8...3.28)\nproject(demo)\n`,
        'build.zig.zon': '.{\n    .name = "demo",\n    .version = "0.15.0",\n    .minimum_zig_version = "0.14.0",\n}\n',
        'toolchain.cfg': 'min_frob_version = 2.7\n',
        'src/frob_compat.c': '/* frob_version 9.9 is what the tests pin */\nint frob(void) { return 0; }\n',
        'src/main.c': 'int main(void) { return 0; }\n',
        DESCRIPTION:
          'Package: demo\nVersion: 1.2.0\nAuthors@R: person("A", "B")\nDepends:\n    R (>= 4.1)\nImports:\n    curl (>= 6.0.1)\n',
        'Makefile.PL':
          "use ExtUtils::MakeMaker;\nWriteMakefile(\n  NAME => 'Demo',\n  PREREQ_PM => {'IO::Socket::IP' => '0.37', 'Sub::Util' => '1.41'},\n);\n",
        'lib/Demo.pm': "package Demo;\nuse IO::Socket::IP;\nmy $s = IO::Socket::IP->new(PeerHost => 'x');\n1;\n",
      },
    });
  });
  after(() => repo.cleanup());

  test('the minimum CMake version: the cmake_minimum_required line, past forty other cmake lines', async () => {
    assert.match(await ask("What's the minimum CMake version this project supports?"), /VERSION 3\.8\.\.\.3\.28/);
  });

  test('the minimum Zig version: the key that spells zig as one of its parts', async () => {
    assert.match(await ask('Which Zig version does it need at least?'), /minimum_zig_version = "0\.14\.0"/);
  });

  test('a runtime of one letter: R in a DESCRIPTION file, past lines where r is a part of a word', async () => {
    const text = await ask("What's the minimum R version this project supports?");
    assert.match(text, /R \(>= 4\.1\)/);
  });

  test("a package spelt with colons (Perl's IO::Socket::IP) is found on its manifest line", async () => {
    assert.match(
      await ask('Which version of IO::Socket::IP does this project depend on?'),
      /'IO::Socket::IP' => '0\.37'/,
    );
    assert.match(await ask('Which IO::Socket::IP version do we need?'), /'IO::Socket::IP' => '0\.37'/);
  });

  test('a root-level file no table names counts; a source file deeper down does not', async () => {
    const text = await ask('What is the minimum frob version required?');
    assert.match(text, /min_frob_version = 2\.7/);
    assert.doesNotMatch(text, /frob_version 9\.9/);
  });
});
