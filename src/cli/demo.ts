// `rxcuda demo`: a frame pipeline on the default device (a GPU, else the host device), with a
// progress bar, a summary of what happened and, if asked, a Chrome trace of the lanes and an HTML
// report of them. Ctrl-C stops taking frames: those in flight finish, and the summary, the trace
// and the report say what ran.
import { resolve } from 'node:path';
import { lastValueFrom, tap, count } from 'rxjs';
import { Device, download, framesFrom, host, lanesFrom, launch, LanePool, LentArray, Timeline, upload, type HostArray, type Work } from '../index.js';
import type { Observable } from 'rxjs';
import { checkOptions } from '../core/base/options.js';
import { bytes, describeDevice, stageLabel } from './format.js';
import { onInterrupt } from './interrupt.js';
import { progress } from './progress.js';

const SOURCE = String.raw`
extern "C" __global__ void invert(unsigned* px, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) px[i] = ~px[i];
}
extern "C" __global__ void brighten(unsigned* px, unsigned amount, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) px[i] += amount;
}`;

/** What `rxcuda demo` was asked for, already checked by the command line. */
export interface DemoOptions {
  readonly frames: number;
  readonly pixels: number;
  readonly lanes: number;
  /** Where the Chrome trace of the lanes goes, if anywhere. */
  readonly trace?: string | undefined;
  /** Where the HTML report of the timeline goes, if anywhere. */
  readonly report?: string | undefined;
  /** Whether to draw a progress bar (only where stderr is a terminal). */
  readonly progress: boolean;
  /**
   * How frames travel: `pinned`, filled in pinned frames from the lanes' pools and read back in
   * place; `pageable`, made as plain arrays and copied into and out of pinned staging.
   */
  readonly road: DemoRoad;
}

/** The roads `rxcuda demo --road` can show. */
export const DEMO_ROADS = ['pinned', 'pageable'] as const;
export type DemoRoad = (typeof DEMO_ROADS)[number];

const ROAD_NAMES: Record<DemoRoad, string> = {
  pinned: 'pinned frames filled in place (framesFrom), results lent in place (download { lend })',
  pageable: 'plain arrays, copied into and out of pinned staging (by native threads when large)',
};

function fillGradient(frame: Uint32Array, i: number): void {
  for (let j = 0; j < frame.length; j++) frame[j] = (i + j) & 0xffff;
}

/** What a demo run did: the frames that came back, and whether Ctrl-C cut it short. */
export interface DemoResult {
  readonly frames: number;
  readonly interrupted: boolean;
}

/**
 * Synthetic frames, made as the pipeline asks for them: a gradient that moves with the frame
 * number, until `frames` or until `stopping()`.
 */
function* gradients(frames: number, pixels: number, stopping: () => boolean): Generator<Uint32Array> {
  for (let i = 0; i < frames && !stopping(); i++) {
    const frame = new Uint32Array(pixels);
    fillGradient(frame, i);
    yield frame;
  }
}

/**
 * Runs the demo pipeline and prints what happened; throws if a frame comes back wrong. The first
 * Ctrl-C stops taking frames, lets those in flight finish and resolves with `interrupted`, after
 * the summary, the trace and the report; a second one ends the process at once (exit code 130).
 */
export async function demo(options: DemoOptions): Promise<DemoResult> {
  checkOptions('options', options, ['frames', 'lanes', 'pixels', 'progress', 'road', 'trace', 'report']);
  const device = Device.default();
  const { frames, pixels, lanes } = options;
  console.log(`rxcuda demo on ${describeDevice(device)}: ${frames} frames of ${bytes(pixels * 4)}, ${lanes} lanes`);
  console.log(`road: ${ROAD_NAMES[options.road]}`);
  let stopping = false;
  let inFlight = () => 0;
  // Listening before the bar is drawn: a Ctrl-C as soon as it shows is the demo's, not the default
  // action's, which would leave the cursor hidden. Signals come through the event loop, after `bar` is made.
  using interrupt = onInterrupt(
    () => {
      stopping = true;
      bar.stop();
      console.error(`interrupted: taking no more frames, finishing the ${inFlight()} in flight (Ctrl-C again to quit at once)`);
    },
    () => bar.stop(),
  );
  using bar = progress(frames, 'frames', options.progress);
  const module = await device.compile(SOURCE, { name: 'demo.cu' });
  const invert = module.kernel('invert', ['ptr', 'u32'], {
    cpu: (_, [px, n]) => {
      const p = px as Uint32Array;
      for (let i = 0; i < (n as number); i++) p[i] = ~p[i]! >>> 0;
    },
  });
  const brighten = module.kernel('brighten', ['ptr', 'u32', 'u32'], {
    cpu: (_, [px, amount, n]) => {
      const p = px as Uint32Array;
      for (let i = 0; i < (n as number); i++) p[i] = (p[i]! + (amount as number)) >>> 0;
    },
  });
  const timeline = new Timeline();
  const pool = new LanePool(device, { lanes, inFlight: lanes * 2, timeline });
  const config = { grid: Math.min(1024, Math.ceil(pixels / 256)), block: 256 };
  inFlight = () => pool.stats.inFlight;
  let brightest = 0;
  let wrong = 0;
  const started = performance.now();
  const source: Observable<Work<Uint32Array | HostArray<'u32'>>> =
    options.road === 'pinned'
      ? framesFrom(pool, { dtype: 'u32', length: pixels, count: frames }, (frame, i) => {
          if (stopping) return false;
          fillGradient(frame.data, i);
          return true;
        })
      : lanesFrom(gradients(frames, pixels, () => stopping), pool);
  const done = await lastValueFrom(
    source.pipe(
      upload((frame) => frame, 'frame'),
      launch(invert, config, [(w) => w.buffers.frame, pixels]),
      launch(brighten, config, [(w) => w.buffers.frame, (w) => w.index & 0xff, pixels]),
      host((w) => void (brightest = Math.max(brightest, w.index & 0xff))),
      download((w) => w.buffers.frame, 'frame', options.road === 'pinned' ? { lend: 'next' } : {}),
      tap((w) => {
        const result = w.results.frame;
        const out = result instanceof LentArray ? result.data : result;
        const j = w.index % pixels;
        if (out[j] !== ((~((w.index + j) & 0xffff) >>> 0) + (w.index & 0xff)) >>> 0) wrong++;
        bar.increment();
      }),
      count(),
    ),
  ).finally(() => bar.stop());
  const seconds = (performance.now() - started) / 1000;
  pool.close();
  if (interrupt.interrupted) console.log(`interrupted after ${done} of ${frames} frames`);
  console.log(`${done} frames in ${seconds.toFixed(2)} s: ${(done / seconds).toFixed(1)} frames/s, ${bytes((done * pixels * 8) / seconds)}/s through the device`);
  console.log(`in flight at most ${pool.stats.maxInFlight} of ${pool.bound}; pooled buffers created: ${pool.stats.buffersCreated}`);
  console.log('per stage (mean ms; copies at their rate while copying):');
  for (const s of Object.values(timeline.summary())) {
    const rate = s.bytes > 0 ? `, ${bytes(s.bytesPerSecond)}/s` : '';
    console.log(`  ${stageLabel(s.kind, s.stage).padEnd(28)} ${s.mean.toFixed(3)} ms × ${s.count}${rate}`);
  }
  if (options.trace !== undefined) {
    await timeline.write(options.trace);
    console.log(`trace: ${resolve(options.trace)} (open in chrome://tracing or ui.perfetto.dev)`);
  }
  if (options.report !== undefined) {
    const title = `rxcuda demo on ${describeDevice(device)}`;
    const description = `${done}${interrupt.interrupted ? ` of ${frames}` : ''} frames of ${bytes(pixels * 4)} on ${lanes} lanes; road: ${ROAD_NAMES[options.road]}${interrupt.interrupted ? '; interrupted by Ctrl-C' : ''}`;
    await timeline.writeHtml(options.report, { title, description });
    console.log(`report: ${resolve(options.report)} (open in any browser)`);
  }
  if (wrong > 0) throw new Error(`${wrong} frames came back wrong`);
  return { frames: done, interrupted: interrupt.interrupted };
}

