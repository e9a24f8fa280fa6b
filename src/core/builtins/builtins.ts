// Built-in kernels with a CUDA implementation (compiled once per device by NVRTC) and a CPU
// implementation (for the host device), behind one API. Elementwise results agree bit for bit
// between the two (CUDA code is compiled without FMA contraction); reductions of floats agree
// within rounding, since the GPU adds in a different order.
import type { TypedArrayOf } from '../base/dtype.js';
import { checkCount, isInstance, rangeError, received, typeError } from '../base/errors.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import { Memory } from '../api/memory.js';
import { Device as DeviceClass, type Device } from '../api/device.js';
import type { Kernel } from '../api/kernel.js';
import type { ParamType } from '../kernels/kernel-types.js';
import { compileModule } from '../api/module.js';
import type { Module } from '../api/module.js';
import { checkScalar } from '../base/scalar.js';
import { Stream as StreamClass, type Stream } from '../api/stream.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

/** Element types the built-in kernels take. */
export type BuiltinDType = 'i32' | 'u32' | 'f32' | 'f64';

const C_TYPES: Record<BuiltinDType, string> = { i32: 'int', u32: 'unsigned', f32: 'float', f64: 'double' };
const OPS = ['fill', 'iota', 'scale', 'axpy', 'add', 'mul', 'reduce_sum', 'transpose'] as const;
type Op = (typeof OPS)[number];

const SOURCE = String.raw`
typedef unsigned long long u64;
#define FOR_EACH(i, n) for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
// Integer arithmetic wraps, as in the CPU implementation (no signed overflow): done unsigned.
template <typename T> struct Bits { typedef T type; };
template <> struct Bits<int> { typedef unsigned type; };
template <typename T> __device__ T add_(T a, T b) { typedef typename Bits<T>::type U; return (T)((U)a + (U)b); }
template <typename T> __device__ T mul_(T a, T b) { typedef typename Bits<T>::type U; return (T)((U)a * (U)b); }

template <typename T> __global__ void fill(T* dst, T value, u64 n) { FOR_EACH(i, n) dst[i] = value; }
template <typename T> __global__ void iota(T* dst, T start, T step, u64 n) { FOR_EACH(i, n) dst[i] = add_(start, mul_((T)i, step)); }
template <typename T> __global__ void scale(T* dst, const T* src, T a, u64 n) { FOR_EACH(i, n) dst[i] = mul_(a, src[i]); }
template <typename T> __global__ void axpy(T a, const T* x, T* y, u64 n) { FOR_EACH(i, n) y[i] = add_(mul_(a, x[i]), y[i]); }
template <typename T> __global__ void add(T* dst, const T* a, const T* b, u64 n) { FOR_EACH(i, n) dst[i] = add_(a[i], b[i]); }
template <typename T> __global__ void mul(T* dst, const T* a, const T* b, u64 n) { FOR_EACH(i, n) dst[i] = mul_(a[i], b[i]); }
template <typename T> __global__ void reduce_sum(T* dst, const T* src, u64 n) {
  __shared__ T partial[256];
  T sum = 0;
  FOR_EACH(i, n) sum = add_(sum, src[i]);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = add_(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(dst, partial[0]);
}
template <typename T> __global__ void transpose(T* dst, const T* src, unsigned rows, unsigned cols) {
  FOR_EACH(i, (u64)rows * cols) { u64 r = i / cols, c = i % cols; dst[c * rows + r] = src[i]; }
}
`;

const modules = new Map<Device, Promise<Module>>();

const MAX_U32 = 2 ** 32 - 1;

/**
 * A scalar argument named `name` for element type `dtype`, checked as a kernel argument of that
 * type is; with `wrap`, an integer type takes any safe integer, wrapped as the device wraps.
 */
function scalar(name: string, dtype: BuiltinDType, value: unknown, wrap = false): number {
  if (!wrap || dtype === 'f32' || dtype === 'f64') {
    checkScalar(name, dtype, value);
    return value as number;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) typeError(name, `an integer (${dtype})`, value);
  if (!Number.isSafeInteger(value)) rangeError(name, 'a safe integer', value);
  return ROUND[dtype](value);
}

/** Throws a RangeError naming `name` when memory `a` overlaps `b` (named `other`) at all. */
function apart(name: string, a: Memory, other: string, b: Memory): void {
  if (a.ptr < b.ptr + BigInt(b.byteLength) && b.ptr < a.ptr + BigInt(a.byteLength))
    rangeError(name, `memory apart from \`${other}\``, received('memory that overlaps it'));
}

function expressions(): string[] {
  return OPS.flatMap((op) => Object.values(C_TYPES).map((t) => `${op}<${t}>`));
}

/** How values of each type are rounded or wrapped on the host, as the device does. */
const ROUND: Record<BuiltinDType, (x: number) => number> = {
  i32: (x) => x | 0,
  u32: (x) => x >>> 0,
  f32: Math.fround,
  f64: (x) => x,
};

type Arrays = TypedArrayOf[BuiltinDType];

/** CPU implementations, written to round exactly where the CUDA code does. */
function cpu(op: Op, dtype: BuiltinDType): (config: LaunchConfig, args: readonly unknown[]) => void {
  const r = ROUND[dtype];
  const mulRound = dtype === 'i32' || dtype === 'u32' ? (a: number, b: number) => r(Math.imul(a, b)) : (a: number, b: number) => r(a * b);
  switch (op) {
    case 'fill':
      return (_, [dst, value, n]) => (dst as Arrays).fill(value as number, 0, Number(n));
    case 'iota':
      return (_, [dst, start, step, n]) => {
        const d = dst as Arrays;
        for (let i = 0; i < Number(n); i++) d[i] = r((start as number) + mulRound(r(i), step as number));
      };
    case 'scale':
      return (_, [dst, src, a, n]) => {
        const [d, s] = [dst as Arrays, src as Arrays];
        for (let i = 0; i < Number(n); i++) d[i] = mulRound(a as number, s[i]!);
      };
    case 'axpy':
      return (_, [a, x, y, n]) => {
        const [xs, ys] = [x as Arrays, y as Arrays];
        for (let i = 0; i < Number(n); i++) ys[i] = r(mulRound(a as number, xs[i]!) + ys[i]!);
      };
    case 'add':
    case 'mul':
      return (_, [dst, a, b, n]) => {
        const [d, x, y] = [dst as Arrays, a as Arrays, b as Arrays];
        for (let i = 0; i < Number(n); i++) d[i] = op === 'add' ? r(x[i]! + y[i]!) : mulRound(x[i]!, y[i]!);
      };
    case 'reduce_sum':
      return (_, [dst, src, n]) => {
        const [d, s] = [dst as Arrays, src as Arrays];
        let sum = d[0]!;
        for (let i = 0; i < Number(n); i++) sum = r(sum + s[i]!);
        d[0] = sum;
      };
    case 'transpose':
      return (_, [dst, src, rows, cols]) => {
        const [d, s] = [dst as Arrays, src as Arrays];
        const [R, C] = [rows as number, cols as number];
        for (let i = 0; i < R * C; i++) d[(i % C) * R + Math.floor(i / C)] = s[i]!;
      };
  }
}

function signature(op: Op, t: BuiltinDType): ParamType[] {
  switch (op) {
    case 'fill': return ['ptr', t, 'u64'];
    case 'iota': return ['ptr', t, t, 'u64'];
    case 'scale': return ['ptr', 'ptr', t, 'u64'];
    case 'axpy': return [t, 'ptr', 'ptr', 'u64'];
    case 'reduce_sum': return ['ptr', 'ptr', 'u64'];
    case 'transpose': return ['ptr', 'ptr', 'u32', 'u32'];
    default: return ['ptr', 'ptr', 'ptr', 'u64'];
  }
}

/**
 * The built-in kernels of one device. Get them with `await Builtins.for(device)`; each call
 * enqueues one kernel on the stream given and returns at once.
 */
export class Builtins {
  /** The device the kernels run on. */
  readonly device: Device;
  readonly #module: Module;
  readonly #kernels = new Map<string, Kernel>();

  private constructor(token: ConstructorToken, device: Device, module: Module) {
    checkConstructorToken(token, 'Builtins', 'Builtins.for(device)');
    this.device = device;
    this.#module = module;
  }

  /**
   * The built-ins of `device`, compiled on first use (and cached on disk) for CUDA devices.
   * @throws TypeError (synchronously) for anything but a Device.
   * @example
   * const builtins = await Builtins.for(device);
   * builtins.iota(stream, x); // x[i] = i
   */
  static for(device: Device): Promise<Builtins> {
    if (!isInstance(device, DeviceClass)) typeError('device', 'a Device', device);
    return Builtins.#for(device);
  }

  static async #for(device: Device): Promise<Builtins> {
    let module = modules.get(device);
    if (!module) {
      module = compileModule(device, SOURCE, { name: 'rxcuda-builtins.cu', options: ['--fmad=false'], expressions: expressions() });
      modules.set(device, module);
    }
    return new Builtins(CONSTRUCTOR_TOKEN, device, await module);
  }

  /**
   * dst[i] = value
   * @example
   * builtins.fill(stream, y, 1.5); // every element of y is 1.5
   */
  fill(stream: Stream, dst: Memory, value: number): void {
    const dtype = this.#arrays(stream, { dst });
    this.#launch(stream, 'fill', dtype, dst.length, [dst, scalar('value', dtype, value), BigInt(dst.length)]);
  }

  /**
   * dst[i] = start + i·step (integers wrap: a u32 step of -1 counts down)
   * @example
   * builtins.iota(stream, x, 10, 2); // 10, 12, 14, …
   */
  iota(stream: Stream, dst: Memory, start = 0, step = 1): void {
    const dtype = this.#arrays(stream, { dst });
    const args = [dst, scalar('start', dtype, start, true), scalar('step', dtype, step, true), BigInt(dst.length)];
    this.#launch(stream, 'iota', dtype, dst.length, args);
  }

  /**
   * dst[i] = a·src[i]
   * @example
   * builtins.scale(stream, y, x, 0.5); // y[i] = 0.5·x[i]
   */
  scale(stream: Stream, dst: Memory, src: Memory, a: number): void {
    const dtype = this.#arrays(stream, { dst, src });
    this.#launch(stream, 'scale', dtype, dst.length, [dst, src, scalar('a', dtype, a), BigInt(dst.length)]);
  }

  /**
   * y[i] = a·x[i] + y[i]
   * @example
   * builtins.axpy(stream, 2, x, y); // y[i] += 2·x[i]
   */
  axpy(stream: Stream, a: number, x: Memory, y: Memory): void {
    const dtype = this.#arrays(stream, { y, x });
    this.#launch(stream, 'axpy', dtype, y.length, [scalar('a', dtype, a), x, y, BigInt(y.length)]);
  }

  /**
   * dst[i] = a[i] + b[i]
   * @example
   * builtins.add(stream, sum, x, y); // sum[i] = x[i] + y[i]
   */
  add(stream: Stream, dst: Memory, a: Memory, b: Memory): void {
    const dtype = this.#arrays(stream, { dst, a, b });
    this.#launch(stream, 'add', dtype, dst.length, [dst, a, b, BigInt(dst.length)]);
  }

  /**
   * dst[i] = a[i] · b[i]
   * @example
   * builtins.mul(stream, product, x, y); // product[i] = x[i]·y[i]
   */
  mul(stream: Stream, dst: Memory, a: Memory, b: Memory): void {
    const dtype = this.#arrays(stream, { dst, a, b });
    this.#launch(stream, 'mul', dtype, dst.length, [dst, a, b, BigInt(dst.length)]);
  }

  /**
   * dst[0] += Σ src[i] (dst is a one-element array; fill it with 0 first for a plain sum). `dst`
   * may not lie within `src`.
   * @example
   * using total = stream.alloc('f32', 1);
   * builtins.fill(stream, total, 0);
   * builtins.reduceSum(stream, total, x); // total[0] = Σ x[i]
   */
  reduceSum(stream: Stream, dst: Memory, src: Memory): void {
    const dtype = this.#arrays(stream, { src, dst }, { dst: 1 });
    apart('dst', dst, 'src', src);
    this.#launch(stream, 'reduce_sum', dtype, src.length, [dst, src, BigInt(src.length)]);
  }

  /**
   * dst (cols × rows) = the transpose of src (rows × cols), both row-major, in memory apart.
   * @example
   * using t = stream.alloc('f32', 6);
   * builtins.transpose(stream, t, matrix, 2, 3); // matrix is 2 × 3, t is 3 × 2
   */
  transpose(stream: Stream, dst: Memory, src: Memory, rows: number, cols: number): void {
    checkCount('rows', rows, 1);
    checkCount('cols', cols, 1);
    if (rows > MAX_U32) rangeError('rows', `an integer in 1..${MAX_U32}`, rows);
    if (cols > MAX_U32) rangeError('cols', `an integer in 1..${MAX_U32}`, cols);
    const dtype = this.#arrays(stream, { src, dst }, { src: rows * cols, dst: rows * cols });
    if (!(dst.ptr === src.ptr && (rows === 1 || cols === 1))) apart('dst', dst, 'src', src); // a row or a column is its own transpose
    this.#launch(stream, 'transpose', dtype, rows * cols, [dst, src, rows, cols]);
  }

  /**
   * Checks the stream and the arrays, named as the caller names them: memory of one built-in
   * element type, of the first one's length (or the length `lengths` gives), and never partly
   * overlapping (an array may be given twice, as an elementwise kernel may work in place).
   * @returns their element type.
   */
  #arrays(stream: Stream, arrays: Record<string, unknown>, lengths: Record<string, number> = {}): BuiltinDType {
    if (!isInstance(stream, StreamClass)) typeError('stream', 'a Stream', stream);
    const named = Object.entries(arrays);
    const [firstName, first] = named[0]!;
    if (!isInstance(first, Memory)) typeError(firstName, 'a DeviceArray or HostArray', first);
    const dtype = first.dtype;
    if (!Object.hasOwn(C_TYPES, dtype)) typeError(firstName, `memory of ${Object.keys(C_TYPES).join(', ')}`, received(`memory of ${dtype}`));
    for (const [name, array] of named) {
      if (!isInstance(array, Memory)) typeError(name, 'a DeviceArray or HostArray', array);
      if (array.dtype !== dtype) typeError(name, `memory of ${dtype}, as \`${firstName}\` is`, received(`memory of ${array.dtype}`));
      const length = lengths[name] ?? (lengths[firstName] === undefined ? first.length : undefined);
      if (length !== undefined && array.length !== length)
        rangeError(name, lengths[name] === undefined ? `${length} elements, as \`${firstName}\` has` : `${length} element${length === 1 ? '' : 's'}`, received(`${array.length} elements`));
    }
    for (let i = 0; i < named.length; i++)
      for (let j = i + 1; j < named.length; j++) {
        const [a, b] = [named[i]![1] as Memory, named[j]![1] as Memory];
        if (a.ptr !== b.ptr) apart(named[j]![0], b, named[i]![0], a);
      }
    return dtype as BuiltinDType;
  }

  #launch(stream: Stream, op: Op, dtype: BuiltinDType, n: number, args: unknown[]): void {
    const kernel = this.#kernel(op, dtype);
    const blocks = Math.max(1, Math.min(Math.ceil(n / 256), 4096));
    stream.launch(kernel, { grid: blocks, block: 256 }, args as never);
  }

  #kernel(op: Op, dtype: BuiltinDType): Kernel {
    const key = `${op}<${C_TYPES[dtype]}>`;
    let kernel = this.#kernels.get(key);
    if (!kernel) {
      kernel = this.#module.kernel(key, signature(op, dtype), { cpu: cpu(op, dtype) as never });
      this.#kernels.set(key, kernel);
    }
    return kernel;
  }
}

