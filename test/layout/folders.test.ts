// The folder plan (docs/architecture.md) held against the code: imports point one way, from the
// reactive layer down to the addon's binding, with no circle between folders, type imports
// included; so do the native code's includes; files and folders stay small.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, moduleGraph, type ModuleFile } from './module-graph.js';

const root = new URL('../../', import.meta.url).pathname;

/** The folders of src/, lowest first: a file may import its own folder's files and lower folders'. */
const LAYERS = [
  'core/base',
  'core/native',
  'core/host',
  'core/memory',
  'core/queue',
  'core/device',
  'core/compiler',
  'core/kernels',
  'core/graphs',
  'core/libraries',
  'core/api',
  'core/builtins',
  'core',
  'operators/timeline',
  'operators/pipeline',
  'operators',
  'operators/jetstream',
  '',
  'cli',
];

/**
 * The folders of native/src/, lowest first ('' is native/src/ itself): a file may include its own
 * folder's files and lower folders'. The two backends share a rank: neither includes the other.
 *   driver/   the driver, NVRTC and library tables, loaded at run time
 *   runtime/  per-environment state (Addon), the device threads, the completion queue, the launch
 *             block's layout, the stream commands both backends offer
 *   host/, cuda/  the backends
 *   ''        addon.cpp: registers the classes, makes and ends an environment's Addon
 */
const NATIVE_LAYERS: readonly (readonly string[])[] = [['driver'], ['runtime'], ['host', 'cuda'], ['']];

/**
 * The circles allowed inside a folder, each with why it must be (the files say so too): classes
 * of the public API that name one another's types. A file that joins one, or a new circle,
 * fails the test.
 */
const ALLOWED_CIRCLES: Record<string, readonly string[]> = {
  'the public classes name one another (a device makes streams, modules and graphs, a stream launches kernels and captures graphs, and each names its device)': [
    'core/api/blas.ts', 'core/api/device.ts', 'core/api/event.ts', 'core/api/fft.ts', 'core/api/graph-exec.ts', 'core/api/graph-node.ts', 'core/api/graph.ts',
    'core/api/kernel.ts', 'core/api/launch-context.ts', 'core/api/launch-hooks.ts', 'core/api/memory.ts', 'core/api/module.ts', 'core/api/stream.ts', 'core/api/template.ts',
  ],
};

// DESIGN.md's bound on a file: about 400 lines, and one over it says why in its first line.
const MAX_LINES = 400;
const OVER_MARK = /^\/\/ Over 400 lines: \S/;
const MAX_FILES = 15;

/** Folder → the folders its files import (itself left out). */
function folderEdges(files: readonly ModuleFile[]): Map<string, Set<string>> {
  const folderOf = new Map(files.map((f) => [f.path, f.folder]));
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const out = edges.get(file.folder) ?? new Set<string>();
    edges.set(file.folder, out);
    for (const target of file.imports) {
      const folder = folderOf.get(target);
      if (folder !== undefined && folder !== file.folder) out.add(folder);
    }
  }
  return edges;
}

/** File → the files of its own folder that it imports. */
function fileEdgesWithin(files: readonly ModuleFile[]): Map<string, Set<string>> {
  const folderOf = new Map(files.map((f) => [f.path, f.folder]));
  return new Map(files.map((f) => [f.path, new Set(f.imports.filter((t) => folderOf.get(t) === f.folder))]));
}

const files = moduleGraph(join(root, 'src'));

/** A native file (path under native/src/) and the files it includes with `#include "…"`, resolved. */
interface NativeFile {
  readonly path: string;
  readonly folder: string;
  readonly includes: readonly string[];
}

/** The files under `dir` (native/src/), with their quoted includes resolved against their own folder. */
function nativeGraph(dir: string): NativeFile[] {
  const walk = (at: string): string[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(at, entry.name)) : [join(at, entry.name)]));
  return walk(dir)
    .filter((file) => /\.(cpp|hpp)$/.test(file))
    .map((file) => {
      const path = relative(dir, file);
      const includes = [...readFileSync(file, 'utf8').matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)].map((m) => relative(dir, join(dirname(file), m[1]!)));
      return { path, folder: dirname(path) === '.' ? '' : dirname(path), includes };
    });
}

/** `from -> to` for each include of `graph` that reaches a higher or same-ranked other folder of `layers`. */
function upwardIncludes(graph: readonly NativeFile[], layers: readonly (readonly string[])[]): string[] {
  const rank = new Map(layers.flatMap((folders, i) => folders.map((folder) => [folder, i] as const)));
  const folderOf = (path: string) => (dirname(path) === '.' ? '' : dirname(path));
  return graph.flatMap((file) =>
    file.includes
      .filter((target) => folderOf(target) !== file.folder && (rank.get(folderOf(target)) ?? Infinity) >= rank.get(file.folder)!)
      .map((target) => `${file.path} -> ${target}`),
  );
}

const nativeFiles = nativeGraph(join(root, 'native/src'));

describe('the module graph', () => {
  it('finds a circle added on purpose, and none in a chain', () => {
    const chain = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set<string>()]]);
    expect(circles(chain)).toEqual([]);
    chain.get('c')!.add('a');
    expect(circles(chain)).toEqual([['a', 'b', 'c']]);
  });

  it('reads type imports, re-exports, import() types and module augmentations', () => {
    const imports = (path: string) => files.find((f) => f.path === path)?.imports ?? [];
    expect(imports('core/index.ts')).toContain('core/device/index.ts'); // export * from
    expect(imports('core/api/stream.ts')).toContain('core/native/types.ts'); // import type
    expect(files.length).toBeGreaterThan(50);
  });

  it('reads a module augmentation as an import of the module it augments', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxcuda-layout-'));
    try {
      writeFileSync(join(dir, 'b.ts'), 'export interface B { readonly x: number }\n');
      writeFileSync(join(dir, 'a.ts'), "declare module './b.js' {\n  interface B { readonly y: number }\n}\nexport {};\n");
      expect(moduleGraph(dir).find((f) => f.path === 'a.ts')?.imports).toEqual(['b.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the native include graph', () => {
  it('reads quoted includes, resolved from the including file', () => {
    const includes = (path: string) => nativeFiles.find((f) => f.path === path)?.includes ?? [];
    expect(includes('cuda/kernel.hpp')).toContain('runtime/launch-block.hpp'); // "../runtime/…"
    expect(includes('runtime/device-thread.hpp')).toContain('runtime/completion.hpp'); // same folder
    expect(includes('addon.cpp')).toContain('host/stream.hpp');
    expect(nativeFiles.length).toBeGreaterThan(50);
  });

  it('finds an include that points up, or across to the other backend', () => {
    const graph = [
      { path: 'runtime/a.hpp', folder: 'runtime', includes: ['driver/b.hpp', 'runtime/c.hpp'] },
      { path: 'host/d.cpp', folder: 'host', includes: ['cuda/e.hpp', 'runtime/a.hpp'] },
      { path: 'driver/f.cpp', folder: 'driver', includes: ['addon.hpp'] },
    ];
    expect(upwardIncludes(graph, NATIVE_LAYERS)).toEqual(['host/d.cpp -> cuda/e.hpp', 'driver/f.cpp -> addon.hpp']);
  });
});

describe('the native tree', () => {
  it('includes only files that exist, under native/src/', () => {
    const stray = nativeFiles.flatMap((f) => f.includes.filter((t) => t.startsWith('..') || !existsSync(join(root, 'native/src', t))).map((t) => `${f.path} -> ${t}`));
    expect(stray).toEqual([]);
  });

  it('includes only its own folder and the folders below it', () => {
    const placed = new Set(NATIVE_LAYERS.flat());
    expect([...new Set(nativeFiles.map((f) => f.folder))].filter((folder) => !placed.has(folder))).toEqual([]);
    expect(upwardIncludes(nativeFiles, NATIVE_LAYERS)).toEqual([]);
  });

  it('has no include circle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const file of nativeFiles) {
      const out = edges.get(file.folder) ?? new Set<string>();
      edges.set(file.folder, out);
      for (const target of file.includes) {
        const folder = dirname(target) === '.' ? '' : dirname(target);
        if (folder !== file.folder) out.add(folder);
      }
    }
    expect(circles(edges)).toEqual([]);
  });
});

describe('the source tree', () => {
  it('has no import circle between folders, type imports included', () => {
    expect(circles(folderEdges(files))).toEqual([]);
  });

  it('imports only its own folder and the folders below it', () => {
    const rank = new Map(LAYERS.map((folder, i) => [folder, i]));
    const folderOf = new Map(files.map((f) => [f.path, f.folder]));
    const unplaced = [...new Set(files.map((f) => f.folder))].filter((folder) => !rank.has(folder));
    expect(unplaced).toEqual([]);
    const upward = files.flatMap((file) =>
      file.imports
        .filter((target) => (rank.get(folderOf.get(target) ?? '') ?? -1) > rank.get(file.folder)!)
        .map((target) => `${file.path} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import circle between the files of a folder but the few that say why', () => {
    expect(circles(fileEdgesWithin(files)).sort()).toEqual(Object.values(ALLOWED_CIRCLES).map((c) => [...c].sort()).sort());
  });

  it(`keeps files to ${MAX_LINES} lines (or says why at their top) and folders to ${MAX_FILES} files, in src/ and native/`, () => {
    const native = (dir: string): { path: string; lines: number }[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return native(path);
        return [{ path: path.slice(root.length), lines: readFileSync(path, 'utf8').split('\n').length - 1 }];
      });
    const all = [...files.map((f) => ({ path: `src/${f.path}`, lines: f.lines })), ...native(join(root, 'native/src'))];
    const saysWhy = (path: string) => OVER_MARK.test(readFileSync(join(root, path), 'utf8'));
    expect(all.filter((f) => f.lines > MAX_LINES && !saysWhy(f.path)).map((f) => `${f.path}: ${f.lines} lines`)).toEqual([]);
    // A C++ class is a .cpp/.hpp pair: one room.
    const rooms = new Map<string, Set<string>>();
    for (const { path } of all) {
      const folder = path.slice(0, path.lastIndexOf('/'));
      rooms.set(folder, (rooms.get(folder) ?? new Set()).add(path.replace(/\.(cpp|hpp)$/, '')));
    }
    const perFolder = new Map([...rooms].map(([folder, names]) => [folder, names.size]));
    expect([...perFolder].filter(([, n]) => n > MAX_FILES).map(([folder, n]) => `${folder}: ${n} files`)).toEqual([]);
  });
});
