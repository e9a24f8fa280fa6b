// Kernels with declared signatures and the launch fast path: the signature builds a packer once;
// each launch writes its arguments into a preallocated block and makes one native call.
import type { KernelAttributes, KernelLauncher, NativeKernel } from './native.js';
import { DTYPES, isDType, toHalfBits, type DType } from './dtype.js';
import { checkCount, rangeError, typeError, received } from './errors.js';
import { Memory } from './memory.js';
import { checkScalar } from './scalar.js';
import { LaunchConfig, type LaunchOptions } from './launch-config.js';
import { launchUnits } from './backlog.js';
import type { Device } from './device.js';
import type { Module } from './module.js';
import type { Stream } from './stream.js';

/** A struct passed by value: its size in bytes (and alignment, default 8), given as raw bytes. */
export interface StructParam {
  readonly struct: number;
  readonly align?: number;
}

/** One kernel parameter: a scalar element type, a device pointer, or a struct by value. */
export type ParamType = DType | 'ptr' | StructParam;

/** A kernel's parameter list, e.g. `['u32', 'f32', 'ptr', 'ptr']`. */
export type Signature = readonly ParamType[];

/** The JavaScript value each parameter type takes. */
export type ArgOf<P> = P extends 'i64' | 'u64'
  ? number | bigint
  : P extends DType
    ? number
    : P extends 'ptr'
      ? Memory | bigint
      : ArrayBuffer | ArrayBufferView;

/** Arguments of a kernel with signature S, one per parameter. */
export type KernelArgs<S extends Signature> = { readonly [K in keyof S]: ArgOf<S[K]> };

const HEADER_BYTES = 64;
const STREAM_WORD = 12;

function describeParam(p: ParamType): string {
  return typeof p === 'string' ? p : `struct(${p.struct})`;
}

function paramLayout(p: ParamType): { size: number; align: number } {
  if (p === 'ptr') return { size: 8, align: 8 };
  if (typeof p === 'string') return { size: DTYPES[p].size, align: DTYPES[p].size };
  return { size: p.struct, align: p.align ?? 8 };
}

function checkSignature(signature: unknown): asserts signature is Signature {
  if (!Array.isArray(signature)) typeError('signature', 'an array of parameter types', signature);
  signature.forEach((p: unknown, i) => {
    if (p === 'ptr' || isDType(p)) return;
    const s = p as StructParam;
    if (typeof p === 'object' && p !== null && Number.isInteger(s.struct) && s.struct > 0 &&
        (s.align === undefined || [1, 2, 4, 8, 16].includes(s.align))) return;
    typeError(`signature[${i}]`, `one of ${Object.keys(DTYPES).join(', ')}, 'ptr' or { struct: bytes, align? }`, p);
  });
}

/** The error for argument i that failed the packer's inline check. */
function badArgument(signature: Signature, device: Device, i: number, value: unknown): never {
  const p = signature[i]!;
  const name = `args[${i}]`;
  if (typeof p === 'string' && p !== 'ptr') {
    checkScalar(name, p, value);
    typeError(name, p, value);
  }
  if (p === 'ptr') {
    if (value instanceof Memory) {
      if (value.closed) typeError(name, 'open memory', received(`a closed ${value.constructor.name}`));
      rangeError(name, `memory of ${device}`, received(`memory of ${value.device}`));
    }
    typeError(name, 'a DeviceArray, a HostArray or a device address as a bigint (ptr)', value);
  }
  const size = p.struct;
  typeError(name, `${size} bytes (an ArrayBuffer or a view) for struct(${size})`, value);
}

/**
 * Builds the packer for a signature: straight-line code with one inline check and one store per
 * parameter, no allocation and no lookups by name.
 */
function buildPacker(signature: Signature, offsets: number[], device: Device, views: Record<string, unknown>) {
  const lines = [
    `if (!Array.isArray(a) || a.length !== ${signature.length}) wrongCount(a);`,
    'let v;',
  ];
  signature.forEach((p, i) => {
    const at = HEADER_BYTES + offsets[i]!;
    const bad = `bad(${i}, v)`;
    lines.push(`v = a[${i}];`);
    switch (p) {
      case 'i8': lines.push(`if (typeof v !== 'number' || (v << 24 >> 24) !== v) ${bad}; i8[${at}] = v;`); break;
      case 'u8': lines.push(`if (typeof v !== 'number' || (v & 0xff) !== v) ${bad}; u8[${at}] = v;`); break;
      case 'i16': lines.push(`if (typeof v !== 'number' || (v << 16 >> 16) !== v) ${bad}; i16[${at / 2}] = v;`); break;
      case 'u16': lines.push(`if (typeof v !== 'number' || (v & 0xffff) !== v) ${bad}; u16[${at / 2}] = v;`); break;
      case 'i32': lines.push(`if (typeof v !== 'number' || (v | 0) !== v) ${bad}; i32[${at / 4}] = v;`); break;
      case 'u32': lines.push(`if (typeof v !== 'number' || (v >>> 0) !== v) ${bad}; u32[${at / 4}] = v;`); break;
      case 'f16': lines.push(`if (typeof v !== 'number') ${bad}; u16[${at / 2}] = half(v);`); break;
      case 'f32': lines.push(`if (typeof v !== 'number') ${bad}; f32[${at / 4}] = v;`); break;
      case 'f64': lines.push(`if (typeof v !== 'number') ${bad}; f64[${at / 8}] = v;`); break;
      case 'i64':
      case 'u64': {
        const [lo, hi] = p === 'i64' ? ['-(2n ** 63n)', '2n ** 63n - 1n'] : ['0n', '2n ** 64n - 1n'];
        const min = p === 'i64' ? '-Number.MAX_SAFE_INTEGER' : '0';
        lines.push(
          `if (typeof v === 'number') { if (!Number.isSafeInteger(v) || v < ${min}) ${bad};`,
          `  const h = Math.floor(v / 4294967296); u32[${at / 4}] = v - h * 4294967296; u32[${at / 4 + 1}] = h >>> 0; }`,
          `else if (typeof v === 'bigint' && v >= ${lo} && v <= ${hi}) ${p}[${at / 8}] = v; else ${bad};`,
        );
        break;
      }
      case 'ptr':
        lines.push(
          `if (v instanceof Memory) { if (v.allocation.freed || (v.allocation.device !== device && !v.allocation.portable)) ${bad};`,
          `  v.allocation.use(stream); u32[${at / 4}] = v.lo; u32[${at / 4 + 1}] = v.hi; }`,
          `else if (typeof v === 'bigint' && v >= 0n && v < 2n ** 64n) u64[${at / 8}] = v; else ${bad};`,
        );
        break;
      default:
        lines.push(`u8.set(structBytes(${i}, v, ${p.struct}), ${at});`);
    }
  });
  const names = Object.keys(views);
  // The source is assembled from fixed templates and numbers only: no user text reaches it.
  const factory = new Function(...names, `return (a, stream) => {\n${lines.join('\n')}\n};`);
  return factory(...names.map((n) => views[n])) as (args: readonly unknown[], stream: Stream) => void;
}

/**
 * A kernel of a loaded module, with its declared signature. Get one with {@link Module.kernel};
 * launch it with {@link Stream.launch}.
 */
export class Kernel<S extends Signature = Signature> {
  /** The name it was looked up by. */
  readonly name: string;
  /** The module it belongs to. */
  readonly module: Module;
  /** The declared parameter types. */
  readonly signature: S;
  readonly #native: NativeKernel;
  readonly #launch: KernelLauncher;
  readonly #header: Uint32Array;
  readonly #pack: (args: readonly unknown[], stream: Stream) => void;
  readonly #queueUnits: number;
  #lastConfig: LaunchConfig | undefined;
  #lastStream: Stream | undefined;
  #attributes: KernelAttributes | undefined;

  /** @internal Use {@link Module.kernel}. */
  constructor(module: Module, name: string, native: NativeKernel, signature: S) {
    checkSignature(signature);
    this.module = module;
    this.name = name;
    this.signature = Object.freeze([...signature]) as unknown as S;
    this.#native = native;
    const layouts = signature.map(paramLayout);
    Kernel.#checkAgainstDriver(native, layouts.map((l) => l.size), signature);
    const offsets: number[] = [];
    let end = 0;
    for (const { size, align } of layouts) {
      end = Math.ceil(end / align) * align;
      offsets.push(end);
      end += size;
    }
    const block = new ArrayBuffer(HEADER_BYTES + Math.ceil(end / 16) * 16);
    this.#queueUnits = launchUnits(end);
    this.#header = new Uint32Array(block);
    const device = module.device;
    const views = {
      i8: new Int8Array(block), u8: new Uint8Array(block), i16: new Int16Array(block),
      u16: new Uint16Array(block), i32: new Int32Array(block), u32: this.#header,
      f32: new Float32Array(block), f64: new Float64Array(block), i64: new BigInt64Array(block),
      u64: new BigUint64Array(block), half: toHalfBits, Memory, device,
      bad: (i: number, v: unknown) => badArgument(signature, device, i, v),
      wrongCount: (a: unknown) =>
        Array.isArray(a)
          ? typeError('args', `${signature.length} arguments (${signature.map(describeParam).join(', ')})`, received(`${a.length}`))
          : typeError('args', 'an array of kernel arguments', a),
      structBytes: (i: number, v: unknown, size: number) => {
        const bytes = ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
          : v instanceof ArrayBuffer ? new Uint8Array(v) : undefined;
        if (!bytes || bytes.byteLength !== size) badArgument(signature, device, i, v);
        return bytes;
      },
    };
    this.#pack = buildPacker(signature, offsets, device, views);
    this.#launch = native.bind(block, Uint32Array.from(offsets));
  }

  static #checkAgainstDriver(native: NativeKernel, sizes: number[], signature: Signature): void {
    const info = native.paramInfo();
    if (!info) return;
    const same = info.length === sizes.length && info.every((p, i) => p.size === sizes[i]);
    if (!same)
      typeError(
        'signature',
        `${info.length} parameters of ${info.map((p) => p.size).join(', ') || 'no'} bytes, as the kernel declares`,
        received(`[${signature.map(describeParam).join(', ')}] (${sizes.join(', ') || 'no'} bytes)`),
      );
  }

  /** The device the kernel runs on. */
  get device(): Device {
    return this.module.device;
  }

  /** The CUfunction handle, for other CUDA code. */
  get handle(): bigint {
    return this.#native.handle();
  }

  /** Registers, shared and local memory, PTX and binary versions, as the driver reports them. */
  get attributes(): KernelAttributes {
    return (this.#attributes ??= Object.freeze(this.#native.attributes()));
  }

  /**
   * Allows launches with up to `bytes` of dynamic shared memory (above the default 48 KiB).
   * @throws CudaError when the device cannot provide it.
   */
  setMaxDynamicSharedMemory(bytes: number): void {
    checkCount('bytes', bytes);
    this.#native.setAttribute(8, bytes);
    this.#attributes = undefined;
  }

  /** How many blocks of `blockSize` threads can be active on one multiprocessor at once. */
  maxActiveBlocks(blockSize: number, sharedMem = 0): number {
    checkCount('blockSize', blockSize, 1);
    checkCount('sharedMem', sharedMem);
    return this.#native.occupancy(blockSize, sharedMem);
  }

  /**
   * The block size that maximizes occupancy, and the smallest grid that fills the device with it.
   * @param options `sharedMem` per block (default 0), `blockLimit` (default 0: no limit).
   */
  suggestedBlockSize(options: { sharedMem?: number; blockLimit?: number } = {}): { blockSize: number; minGridSize: number } {
    const { sharedMem = 0, blockLimit = 0 } = options;
    checkCount('sharedMem', sharedMem);
    checkCount('blockLimit', blockLimit);
    return this.#native.suggestBlockSize(sharedMem, blockLimit);
  }

  /** @internal The launch fast path; see {@link Stream.launch}. */
  launchOn(stream: Stream, config: LaunchConfig | LaunchOptions, args: KernelArgs<S>): void {
    stream.checkOpen();
    if (this.module.closed) typeError('kernel', 'a kernel of a loaded module', received('a kernel of a closed Module'));
    if (stream.device !== this.module.device)
      rangeError('stream', `a stream of ${this.module.device}`, received(`a stream of ${stream.device}`));
    let checked = this.#lastConfig;
    if (config !== checked) {
      checked = LaunchConfig.from(config);
      checked.checkFor(stream.device);
      this.#header.set(checked.header);
      this.#lastConfig = checked === config ? checked : undefined;
    }
    if (stream !== this.#lastStream) {
      this.#header[STREAM_WORD] = stream.lo;
      this.#header[STREAM_WORD + 1] = stream.hi;
      this.#lastStream = stream;
      this.module.usedOn(stream);
    }
    this.#pack(args, stream);
    stream.backlog.admit(this.#queueUnits);
    try {
      this.#launch(stream, checked, args);
    } catch (error) {
      stream.device.fail(error);
    }
  }
}
