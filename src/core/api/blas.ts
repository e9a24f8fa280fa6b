// cuBLAS in stream order: matrix products as stream commands, checked in TypeScript before
// anything is enqueued, on the GPU through cuBLAS (loaded at the first call) and on the host
// device through the CPU reference (native/src/host/gemm.cpp), with the same contract.
import { isInstance, typeError } from '../base/errors.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';
import { checkOptions } from '../base/options.js';
import { Device as DeviceClass, type Device } from './device.js';
import type { DeviceArray } from './memory.js';
import { checkStreamOf, type Stream } from './stream.js';
import { recordLibraryCall } from '../graphs/node-work.js';
import { requireLibrary } from '../libraries/availability.js';
import { RecordedCall, allocationsOf, readyNow, submit, type Readiness, type Library } from '../libraries/call.js';
import { statusError } from '../libraries/errors.js';
import { GEMM_KEYS, GemmShape, LastGemm, checkGemm, gemmChange, gemmName, type GemmDType, type GemmOptions, type GemmOutput } from '../libraries/gemm-args.js';
import { CUBLAS, G, libraries, type NativeBlas } from '../libraries/native.js';

/**
 * Bytes of the workspace each stream's cuBLAS calls share on a GPU (cuBLAS's advice for Hopper),
 * and of the one a graph's GEMM node has of its own.
 */
export const BLAS_WORKSPACE_BYTES = 32 << 20;
const GRAPH_WORKSPACE_BYTES = 4 << 20;

const perDevice = new WeakMap<Device, Blas>();

/**
 * A Blas of `device` whose calls go to `native`, ready at once, with workspaces of `workBytes`:
 * rxcuda/internal's stand-in, whose native call does nothing (bench/study/library-path).
 * @internal Its type names the native table, which the published types leave out.
 */
export let blasOver: (device: Device, native: NativeBlas, workBytes: number) => Blas;

/**
 * cuBLAS for one device, in stream order: `gemm` enqueues a matrix product on the stream it is
 * given and returns at once. On a GPU it calls cuBLAS (loaded at the first call, from CUDA_PATH,
 * /usr/local/cuda or the loader path), with one handle per device, set to each call's stream,
 * and a workspace per stream from the stream-ordered pool; on the host device a CPU reference
 * with the same contract runs in the stream's order, off the main thread. Get one with
 * `device.blas` or `Blas.for(device)`.
 *
 * Results agree between the two within rounding: each element is a sum of k products, formed in
 * f32 for f16, bf16 and f32 operands (f64 for f64) and rounded to C's type, in an order that
 * differs, so the two differ by at most about 2·k·ε·Σ|a||b| (ε of the sums' type) plus C's own
 * rounding.
 *
 * @example
 * const a = stream.alloc('f32', m * k), b = stream.alloc('f32', k * n), c = stream.alloc('f32', m * n);
 * device.blas.gemm(stream, a, b, c, { m, n, k }); // c = a·b, all row-major
 */
export class Blas {
  /** The device the products run on. */
  readonly device: Device;
  readonly #library: Library;
  readonly #block = new Float64Array(G.slots);
  readonly #last = new LastGemm();
  /** The name and shape of the calls recorded (by captures and replays). */
  readonly #recorded = new GemmShape();
  /** The handle being made (CUDA), what made it fail, and the workspace its calls take. */
  #readiness: Readiness | undefined;
  #native: NativeBlas | undefined;

  private constructor(token: ConstructorToken, device: Device) {
    checkConstructorToken(token, 'a Blas', 'Blas.for(device) or device.blas');
    this.device = device;
    const blas = this;
    this.#library = {
      name: 'cuBLAS', device: device.engine, kind: CUBLAS, call: 'cublasGemmEx',
      streamAt: G.streamLo, workAt: G.workLo, workBytesAt: G.workBytes,
      get native() {
        return blas.#native!;
      },
      run: (block) => blas.#native!.gemm(block),
      change: gemmChange,
      own: this.#block,
      runOwn: () => 0, // bound once the library is loaded
    };
  }

  /**
   * The Blas of `device`, the same object every time (`device.blas` too). Nothing is loaded until
   * the first call.
   * @example
   * const blas = Blas.for(Device.default());
   * @throws TypeError for anything but a Device.
   */
  static for(device: Device): Blas {
    if (!isInstance(device, DeviceClass)) typeError('device', 'a Device', device);
    let blas = perDevice.get(device);
    if (!blas) perDevice.set(device, (blas = new Blas(CONSTRUCTOR_TOKEN, device)));
    return blas;
  }

  /**
   * Enqueues C = alpha·op(A)·op(B) + beta·C on `stream`, for row-major matrices (see
   * {@link GemmOptions}): `a` and `b` of one element type, `c` of that type too, or f32 for f16
   * and bf16 operands (their products are summed in f32 either way). With `batch`, that many
   * products of matrices `strideA`, `strideB` and `strideC` elements apart. Everything is checked
   * before anything is enqueued; the call returns at once.
   * @example
   * blas.gemm(stream, x, weights, y, { m: batch, n: outputs, k: inputs });                 // y = x·W
   * blas.gemm(stream, x, weights, y, { m: batch, n: outputs, k: inputs, transB: true });   // y = x·Wᵀ
   * blas.gemm(stream, q, k, scores, { m: 64, n: 64, k: 32, transB: true, batch: heads });  // per head
   * @throws TypeError for a stream or array that is not one, a closed one, an element type that
   * does not fit or bad options; RangeError for sizes or strides that do not fit the arrays, an
   * array or stream of another device, or `c` overlapping `a` or `b`; LibraryError (code -1 or
   * -2) when cuBLAS cannot be loaded, or with cuBLAS's status when it refuses the call. Nothing is
   * enqueued when it throws.
   */
  gemm<D extends GemmDType>(stream: Stream, a: DeviceArray<D>, b: DeviceArray<NoInfer<D>>, c: DeviceArray<NoInfer<GemmOutput<D>>>, options: GemmOptions): void {
    const block = this.#block;
    // The call checked last again (a loop's): its block holds it already. Its option values are
    // the same, but the object may carry a key that the full check would refuse (`tranB`).
    if (this.#last.is(stream, a, b, c, options)) {
      checkOptions('options', options, GEMM_KEYS);
      stream.engine.checkOpen();
    } else {
      checkStreamOf(stream, this.device);
      checkGemm(this.device.engine, stream, stream.engine, a, b, c, options, block, this.#last);
    }
    const readiness = this.#readiness ?? this.#open();
    const capture = stream.engine.recorder;
    if (capture) {
      const { name, shape } = this.#recorded.of(block);
      const call = new RecordedCall(this.#library, name, shape, block, readiness, gemmName, this.device.kind === 'cuda' ? GRAPH_WORKSPACE_BYTES : 0);
      return recordLibraryCall(capture, call, allocationsOf(a, b, c));
    }
    submit(this.#library, stream.engine, block, readiness, gemmName);
    a.allocation.use(stream.engine);
    b.allocation.use(stream.engine);
    c.allocation.use(stream.engine);
  }

  static #over(device: Device, native: NativeBlas, workBytes: number): Blas {
    const blas = new Blas(CONSTRUCTOR_TOKEN, device);
    blas.#native = native;
    blas.#library.runOwn = native.bind(blas.#block);
    blas.#readiness = { pending: undefined, failure: undefined, workBytes };
    return blas;
  }

  /** Loads cuBLAS and starts making the handle, at the first call (throws where it cannot be loaded). */
  #open(): Readiness {
    if (this.device.kind === 'host') {
      this.#native = new libraries.HostBlas(this.device.engine.native);
      this.#library.runOwn = this.#native.bind(this.#block);
      return (this.#readiness = readyNow());
    }
    requireLibrary('cuBLAS');
    const native = (this.#native = new libraries.CudaBlas(this.device.engine.native));
    this.#library.runOwn = native.bind(this.#block);
    const readiness: Readiness = { pending: undefined, failure: undefined, workBytes: BLAS_WORKSPACE_BYTES };
    readiness.pending = native.open!().then(
      ([status]) => {
        if (status !== 0) readiness.failure = statusError('cuBLAS', status, 'cublasCreate', `making the cuBLAS handle of ${this.device}`);
      },
      (error: unknown) => {
        readiness.failure = statusError('cuBLAS', 1, 'cublasCreate', `making the cuBLAS handle of ${this.device}: ${String(error)}`);
      },
    ).finally(() => (readiness.pending = undefined));
    return (this.#readiness = readiness);
  }
  static {
    blasOver = (device, native, workBytes) => Blas.#over(device, native, workBytes);
  }
}
