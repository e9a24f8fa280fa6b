// A fuzzer of rxcuda's public entry points (test/host/fixtures/fuzz.mjs, over the built package:
// `npx tsc` first): valid and hostile arguments at random, in a child process, so that a crash
// fails the test; a wait that does not settle within its deadline fails it as a hang; every
// refusal must be in rxcuda's words and leave every byte of memory and every stream as it was.
// FUZZ_CALLS and FUZZ_SEED change the run (docs/reliability.md gives the long one).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { publicCallables } from '../support/entry-points.js';
import { JETSTREAM_ENTRIES } from '../support/fuzz-jetstream-entries.js';
import { KERNEL_ENTRIES } from '../support/fuzz-kernel-entries.js';
import { LIBRARY_ENTRIES } from '../support/fuzz-library-entries.js';
import { PIPELINE_ENTRIES } from '../support/fuzz-pipeline-entries.js';
import { STREAM_ENTRIES } from '../support/fuzz-stream-entries.js';

const fixture = new URL('./fixtures/fuzz.mjs', import.meta.url).pathname;
const CALLS = Number(process.env.FUZZ_CALLS ?? 3000);
const SEED = Number(process.env.FUZZ_SEED ?? 27);

interface Figures {
  calls: number;
  accepted: number;
  refused: number;
  entryPoints: number;
  entries: Record<string, { calls: number; refused: number }>;
  ms: number;
}

describe('the public entry points, fuzzed', () => {
  it(`take ${CALLS} random calls of at least 20 entry points without a crash, a hang or memory changed by a refusal`, () => {
    const child = spawnSync(process.execPath, ['--expose-gc', fixture, String(CALLS), String(SEED)], { encoding: 'utf8', timeout: 120_000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr.slice(0, 2000) }).toEqual({ status: 0, signal: null, stderr: '' });
    const figures = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Figures;
    console.log(`fuzz (seed ${SEED}): ${child.stdout.trim()}`);
    expect(figures.calls).toBe(CALLS);
    expect(figures.accepted + figures.refused).toBe(CALLS);
    expect(figures.entryPoints).toBeGreaterThanOrEqual(20);
    // Every entry point was called, and at least 20 of them both refused and accepted calls.
    for (const [name, entry] of Object.entries(figures.entries)) expect(entry.calls, name).toBeGreaterThan(0);
    expect(Object.values(figures.entries).filter((e) => e.refused > 0 && e.refused < e.calls).length).toBeGreaterThanOrEqual(20);
  }, 180_000);
});

describe('the entry points the fuzzers with an oracle call (test/host/fuzz-*.test.ts)', () => {
  it('are at least 30 callables of the public API, the libraries, the operators and rxcuda/jetstream among them', () => {
    const api = publicCallables();
    const ids = [
      ...[...STREAM_ENTRIES, ...KERNEL_ENTRIES, ...PIPELINE_ENTRIES, ...LIBRARY_ENTRIES].map((name) => `rxcuda: ${name}`),
      ...JETSTREAM_ENTRIES.map((name) => `rxcuda/jetstream: ${name}`),
    ];
    // `Stream.alloc` is the method `Stream#alloc`, or a static `Blas.for`; `upload` a function.
    const missing = ids.filter((id) => !api.has(id) && !api.has(id.replace(/\.(\w+)$/, '#$1')));
    console.log(`fuzzers with an oracle: ${ids.length} of the ${api.size} public callables`);
    expect(missing).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(30);
    for (const id of ['rxcuda: Blas.gemm', 'rxcuda: Fft.c2c', 'rxcuda: gemm', 'rxcuda: fft', 'rxcuda/jetstream: fromJetStream', 'rxcuda: fanOut', 'rxcuda: GraphExec.update'])
      expect(ids).toContain(id);
  }, 60_000);
});
