// What a Timeline records of a pipeline whose host copies overlap (frames over 256 KiB, staged by
// native threads while earlier ones are on the device): rows in the Chrome trace that no two
// overlapping spans share, and device spans placed after the host work they waited for. And what
// writing a trace or a page where no file can be written does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, map, range, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileWriteError, LanePool, RxcudaError, Timeline, download, host, launch, onStreams, upload, type Span, type TraceEvent } from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { chromeTraceProblems } from '../support/chrome-trace.js';
import { testKernels } from '../support/kernels.js';

const N = 1 << 17; // 512 KiB of u32: staged by native threads
const VALUES = 12;

/** Pairs of spans of one thread that overlap, as `a / b` (the trace's names). */
function overlapsPerThread(events: readonly TraceEvent[]): string[] {
  const threads = new Map<number, TraceEvent[]>();
  for (const e of events) if (e.ph === 'X') (threads.get(e.tid) ?? threads.set(e.tid, []).get(e.tid)!).push(e);
  const found: string[] = [];
  for (const spans of threads.values()) {
    spans.sort((a, b) => a.ts! - b.ts!);
    for (let i = 1; i < spans.length; i++) {
      const [a, b] = [spans[i - 1]!, spans[i]!];
      if (b.ts! < a.ts! + a.dur! - 0.001) found.push(`${a.name} / ${b.name} on thread ${a.tid}`);
    }
  }
  return found;
}

describeBackends('Timeline of overlapping host copies', (getDevice) => {
  let timeline: Timeline;
  let spans: Span[];
  beforeAll(async () => {
    const device = getDevice();
    const kernels = await testKernels(device);
    timeline = new Timeline();
    const pool = new LanePool(device, { lanes: 2, inFlight: 6, timeline });
    await lastValueFrom(
      range(0, VALUES).pipe(
        map((i) => new Uint32Array(N).fill(i)),
        onStreams(pool),
        upload((frame) => frame),
        launch(kernels.invert, (w) => ({ config: { grid: N / 256, block: 256 }, args: [w.buffers.input, N] })),
        host(() => {}),
        download((w) => w.buffers.input),
        toArray(),
      ),
    );
    pool.close();
    spans = timeline.spans();
  });

  it('puts no two overlapping spans on one thread of the Chrome trace', () => {
    const trace = timeline.toChromeTrace();
    expect(chromeTraceProblems(trace)).toEqual([]);
    expect(trace.traceEvents.filter((e) => e.ph === 'X')).toHaveLength(spans.length);
    expect(overlapsPerThread(trace.traceEvents)).toEqual([]);
  });

  it('names the rows that overlapping spans need after their lane, and sorts them beside it', () => {
    const trace = timeline.toChromeTrace();
    const names = new Map(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args!.name]));
    const order = trace.traceEvents.filter((e) => e.name === 'thread_sort_index').sort((a, b) => Number(a.args!.sort_index) - Number(b.args!.sort_index)).map((e) => names.get(e.tid));
    // The first six frames were staged at once, three a lane: their copies overlapped.
    expect(order).toContain('lane 0 host steps (2)');
    expect(order.slice(0, 3)).toEqual(['lane 0 device work', 'lane 0 host steps', 'lane 0 host steps (2)']);
    expect(names.get(1)).toBe('lane 0 device work');
    expect(names.get(2)).toBe('lane 0 host steps');
    expect(names.get(3)).toBe('lane 1 device work');
    expect(names.get(4)).toBe('lane 1 host steps');
  });

  it('places a frame\'s upload after its staging copy, and its host copy after its download', () => {
    const wrong: string[] = [];
    for (let index = 0; index < VALUES; index++) {
      const of = (stage: string) => spans.find((s) => s.index === index && s.stage === stage)!;
      const [staging, upload, download, copy] = [of('stage input [workers]'), of('upload input [staged]'), of('download output [new array]'), of('copy output [workers]')];
      if (upload.start < staging.start) wrong.push(`#${index}: upload at ${upload.start.toFixed(3)} ms, staging from ${staging.start.toFixed(3)} ms`);
      if (copy.start < download.start) wrong.push(`#${index}: host copy at ${copy.start.toFixed(3)} ms, download from ${download.start.toFixed(3)} ms`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('Timeline.write and Timeline.writeHtml', () => {
  let folder: string;
  beforeAll(() => void (folder = mkdtempSync(join(tmpdir(), 'rxcuda-timeline-'))));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  for (const method of ['write', 'writeHtml'] as const) {
    it(`${method} rejects with a FileWriteError that names the path, its cause the file system's error, where the folder does not exist`, async () => {
      const path = join(folder, 'no such folder', 'x.out');
      const error = await new Timeline()[method](path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileWriteError);
      expect(error).toBeInstanceOf(RxcudaError);
      expect(error).toMatchObject({ name: 'FileWriteError', path, code: undefined, cause: { code: 'ENOENT' } });
      expect((error as Error).message).toContain(path);
    });

    it(`${method} rejects with a FileWriteError where the path is a folder`, async () => {
      const error = await new Timeline()[method](folder).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileWriteError);
      expect(error).toMatchObject({ path: folder, cause: { code: 'EISDIR' } });
    });

    it(`${method} rejects with a TypeError for a path that is not a string`, async () => {
      await expect(new Timeline()[method](42 as unknown as string)).rejects.toThrow(new TypeError('Expected `path` to be a file path (a non-empty string), got 42'));
    });
  }
});
