// The examples and `rxcuda demo` run as a user would run them, on the default device.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 120_000 });

describe('examples', () => {
  it('saxpy gets every result exact', () => {
    expect(node(['dist/examples/saxpy.js'])).toContain('all 1048576 results exact');
  });

  it('frame-pipeline thresholds 30 frames', () => {
    const out = node(['dist/examples/frame-pipeline.js']);
    expect(out.match(/^frame \d+ \(lane [0-2]\): 40\.0% above threshold$/gm)).toHaveLength(30);
    expect(out).toMatch(/^done on /m);
  });

  it('fork-join joins both branches of every value', () => {
    expect(node(['dist/examples/fork-join.js'])).toContain('fork/join ok');
  });

  it('multi-device spreads 24 frames over the devices and copies between two of them', () => {
    const out = node(['dist/examples/multi-device.js']);
    const lines = out.match(/^.+: \d+ frames, all right: true$/gm) ?? [];
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.reduce((sum, line) => sum + Number(/: (\d+) frames/.exec(line)![1]), 0)).toBe(24);
    expect(out).toMatch(/^copied from .+ to .+ \((peer access|staged through the host)\): 21$/m);
  });

  it('perceptron predicts every row of 8 batches right through two products and their kernels', () => {
    const out = node(['dist/examples/perceptron.js']);
    expect(out.match(/^batch \d: 256 rows, 256 predicted right$/gm)).toHaveLength(8);
    expect(out).toMatch(/^2048 of 2048 right on .+: \d+ rows\/s$/m);
  });

  it('spectrogram finds the tone of each of 12 blocks in all its frames', () => {
    const out = node(['dist/examples/spectrogram.js']);
    const peaks = [...out.matchAll(/^block (\d+): peak ([\d.]+) Hz in all 8 frames: true$/gm)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(peaks.sort((a, b) => a[0]! - b[0]!)).toEqual(Array.from({ length: 12 }, (_, b) => [b, ((20 + 4 * b) * 48000) / 1024]));
    expect(out).toMatch(/^12 of 12 blocks peak at their tone on .+: \d+ samples\/s$/m);
  });

  it('heat-until-steady relaxes the rod on the device and from JavaScript alike', () => {
    const out = node(['dist/examples/heat-until-steady.js']);
    const [, onDevice, fromHost, same] = /^steady after (\d+) sweeps on the device, (\d+) decided from JavaScript; same rod: (\w+)$/m.exec(out) ?? [];
    expect(Number(onDevice)).toBeGreaterThan(100);
    expect(onDevice).toBe(fromHost);
    expect(same).toBe('true');
    expect(out).not.toMatch(/stopped after/);
  });

  it('batched-saxpy summarizes 12 batches', () => {
    const out = node(['dist/examples/batched-saxpy.js']);
    expect(out.match(/^batch \d+: mean/gm)).toHaveLength(12);
    expect(out).toContain('sum of batch means: 95.6801');
  });
});

describe('rxcuda demo', () => {
  it('runs the frame pipeline, prints a summary and writes a trace', () => {
    const trace = join(mkdtempSync(join(tmpdir(), 'rxcuda-demo-')), 'trace.json');
    const out = node(['dist/src/cli/main.js', 'demo', '--frames', '40', '--pixels', '4096', '--no-progress', '--trace', trace]);
    expect(out).toMatch(/^40 frames in [\d.]+ s: [\d.]+ frames\/s/m);
    expect(out).toMatch(/in flight at most [1-6] of 6/);
    expect(out).toContain(`trace: ${trace}`);
    const events: { ph: string }[] = JSON.parse(readFileSync(trace, 'utf8')).traceEvents;
    expect(events.filter((e) => e.ph === 'X').length).toBe(40 * 5);
  });
});
