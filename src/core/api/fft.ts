// cuFFT in stream order: Fourier transforms as stream commands, checked in TypeScript before
// anything is enqueued, on the GPU through cuFFT (loaded at the first call) and on the host device
// through the CPU reference (native/src/host/fft-plan.cpp), with the same contract.
import { isInstance, typeError } from '../base/errors.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { checkOptions } from '../base/options.js';
import { Device as DeviceClass, type Device } from './device.js';
import type { DeviceArray } from './memory.js';
import { checkStreamOf, type Stream } from './stream.js';
import { recordLibraryCall } from '../graphs/node-work.js';
import { requireLibrary } from '../libraries/availability.js';
import { RecordedCall, allocationsOf, submit, type Library } from '../libraries/call.js';
import { C2C_KEYS, FFT_KEYS, LastFft, checkFft, fftChange, type C2cOptions, type FftDType, type FftKind, type FftOptions } from '../libraries/fft-args.js';
import { PlanCache, type PlanEntry } from '../libraries/fft-plans.js';
import { CUFFT, F, P, libraries, type NativeFft } from '../libraries/native.js';

const perDevice = new WeakMap<Device, Fft>();

/**
 * An Fft of `device` whose plans and calls go to `native`: rxcuda/internal's stand-in, whose
 * native calls do nothing (bench/study/library-path).
 * @internal Its type names the native table, which the published types leave out.
 */
export let fftOver: (device: Device, native: NativeFft) => Fft;

/**
 * cuFFT for one device, in stream order: each call enqueues a transform on the stream it is given
 * and returns at once. On a GPU it calls cuFFT (loaded at the first call, from CUDA_PATH,
 * /usr/local/cuda or the loader path) with plans cached by kind, precision, sizes and batch (at
 * most {@link MAX_PLANS}; each made off the main thread, its first calls waiting for it in their
 * streams' queues) and work areas from the stream-ordered pool; on the host device a CPU
 * reference with the same contract runs in the stream's order, off the main thread. Get one with
 * `device.fft` or `Fft.for(device)`.
 *
 * Complex data is interleaved (re, im) in f32 or f64 arrays; sizes are row-major, the last
 * dimension contiguous; a batch's transforms lie one after another. Transforms are unnormalized,
 * as cuFFT's: a forward then an inverse transform multiplies by the number of points. The host
 * device sums in f64, so the two agree within the GPU's rounding: about ε·log₂(n) relative to
 * the data's magnitude (ε of the data's type).
 *
 * @example
 * // A spectrum of 64 blocks of 4096 samples: 2049 complex values each.
 * const spectra = stream.alloc('f32', 64 * 2049 * 2);
 * device.fft.r2c(stream, samples, spectra, { shape: 4096, batch: 64 });
 */
export class Fft {
  /** The device the transforms run on. */
  readonly device: Device;
  readonly #library: Library;
  readonly #description = new Float64Array(P.slots);
  readonly #block = new Float64Array(F.slots);
  #plans: PlanCache | undefined;
  #native: NativeFft | undefined;
  /** The last call's plan and description: the same transform again finds it at once. */
  #last: PlanEntry | undefined;
  readonly #lastDescription = new Float64Array(P.slots);
  /** The call checked last, and its plan. */
  readonly #lastCall = new LastFft<PlanEntry>();

  private constructor(token: ConstructorToken, device: Device) {
    checkConstructorToken(token, 'a Fft', 'Fft.for(device) or device.fft');
    this.device = device;
    const fft = this;
    this.#library = {
      name: 'cuFFT', device: device.engine, kind: CUFFT, call: 'cufftExec',
      streamAt: F.streamLo, workAt: F.workLo, workBytesAt: F.workBytes,
      get native() {
        return fft.#native!;
      },
      run: (block) => fft.#native!.exec(block),
      change: fftChange,
      own: this.#block,
      runOwn: () => 0, // bound once the library is loaded
    };
  }

  /**
   * The Fft of `device`, the same object every time (`device.fft` too). Nothing is loaded until
   * the first call.
   * @example
   * const fft = Fft.for(Device.default());
   * @throws TypeError for anything but a Device.
   */
  static for(device: Device): Fft {
    if (!isInstance(device, DeviceClass)) typeError('device', 'a Device', device);
    let fft = perDevice.get(device);
    if (!fft) perDevice.set(device, (fft = new Fft(CONSTRUCTOR_TOKEN, device)));
    return fft;
  }

  /** Plans in the cache now (at most {@link MAX_PLANS}). */
  get cachedPlans(): number {
    return this.#plans?.size ?? 0;
  }

  /**
   * Lets every cached plan go: each is destroyed once the work and the graphs that use it are
   * done with it. Later calls make plans again.
   * @example
   * for (const n of sizes) fft.c2c(stream, x, y, { shape: n }); // a sweep over many sizes
   * fft.clearPlans(); // their plans are not needed again
   */
  clearPlans(): void {
    this.#plans?.clear();
    this.#last = undefined;
    this.#lastCall.forget();
  }

  /**
   * Enqueues a complex-to-complex transform of `input` into `output` (interleaved complex, or the
   * same array: in place), forward or inverse.
   * @example
   * fft.c2c(stream, signal, spectrum, { shape: 1024 });
   * fft.c2c(stream, spectrum, signal, { shape: 1024, direction: 'inverse' }); // 1024 × the signal
   * @throws TypeError for a stream or array that is not one, a closed one, another element type
   * or bad options; RangeError for sizes the arrays cannot hold, misaligned or overlapping data,
   * an array or stream of another device; LibraryError when cuFFT cannot be loaded or refuses the
   * plan or the call. Nothing is enqueued when it throws.
   */
  c2c<D extends FftDType>(stream: Stream, input: DeviceArray<D>, output: DeviceArray<NoInfer<D>>, options: C2cOptions): void {
    this.#transform('c2c', stream, input, output, options);
  }

  /**
   * Enqueues a real-to-complex (forward) transform: for real data of `shape`, the complex values
   * of the last dimension's first `last / 2 + 1` frequencies (the others are their conjugates).
   * @example
   * fft.r2c(stream, samples, spectra, { shape: 4096, batch: 64 }); // 64 × 2049 complex values
   * @throws as {@link c2c} does.
   */
  r2c<D extends FftDType>(stream: Stream, input: DeviceArray<D>, output: DeviceArray<NoInfer<D>>, options: FftOptions): void {
    this.#transform('r2c', stream, input, output, options);
  }

  /**
   * Enqueues a complex-to-real (inverse, unnormalized) transform: the `last / 2 + 1` values per
   * row that {@link r2c} gives back to real data of `shape`. As with cuFFT, `input` may be
   * overwritten.
   * @example
   * fft.c2r(stream, spectra, samples, { shape: 4096, batch: 64 }); // 4096 × the samples
   * @throws as {@link c2c} does.
   */
  c2r<D extends FftDType>(stream: Stream, input: DeviceArray<D>, output: DeviceArray<NoInfer<D>>, options: FftOptions): void {
    this.#transform('c2r', stream, input, output, options);
  }

  #transform(kind: FftKind, stream: Stream, input: DeviceArray, output: DeviceArray, options: FftOptions): void {
    const block = this.#block;
    // The call checked last again (a loop's): its block holds it, and its plan is found. Its
    // option values are the same, but the object may carry a key the full check would refuse.
    let plan = this.#lastCall.is(kind, stream, input, output, options);
    if (plan) {
      checkOptions('options', options, kind === 'c2c' ? C2C_KEYS : FFT_KEYS);
      stream.engine.checkOpen();
    } else {
      checkStreamOf(stream, this.device);
      checkFft(this.device.engine, kind, stream, stream.engine, input, output, options, this.#description, block, this.#lastCall);
      plan = this.#lastCall.plan = this.#plan(this.#description);
      block[F.plan] = plan.slot;
    }
    const capture = stream.engine.recorder;
    if (capture) return recordLibraryCall(capture, new RecordedCall(this.#library, plan.name, plan.shapes[block[F.direction]!]!, block, plan, plan.describe), allocationsOf(input, output, undefined, plan.resource));
    submit(this.#library, stream.engine, block, plan, plan.describe);
    input.allocation.use(stream.engine);
    output.allocation.use(stream.engine);
    plan.resource.use(stream.engine);
  }

  static #over(device: Device, native: NativeFft): Fft {
    const fft = new Fft(CONSTRUCTOR_TOKEN, device);
    fft.#native = native;
    fft.#library.runOwn = native.bind(fft.#block);
    fft.#plans = new PlanCache(device.engine, native);
    return fft;
  }

  #plan(description: Float64Array): PlanEntry {
    const last = this.#last;
    if (last && sameDescription(description, this.#lastDescription)) return last;
    const plans = (this.#plans ??= this.#open());
    const entry = plans.get(description);
    this.#last = entry;
    this.#lastDescription.set(description);
    return entry;
  }

  #open(): PlanCache {
    if (this.device.kind === 'cuda') requireLibrary('cuFFT');
    this.#native = this.device.kind === 'cuda' ? new libraries.CudaFft(this.device.engine.native) : new libraries.HostFft(this.device.engine.native);
    this.#library.runOwn = this.#native.bind(this.#block);
    return new PlanCache(this.device.engine, this.#native);
  }
  static {
    fftOver = (device, native) => Fft.#over(device, native);
  }
}

function sameDescription(a: Float64Array, b: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
