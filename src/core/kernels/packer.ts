// The launch fast path's argument packer: a signature becomes straight-line code, built once,
// that checks each argument and stores it into the kernel's preallocated argument block; and the
// signature's layout, checked against the parameters of the compiled code.
import { bytesOf } from '../base/buffers.js';
import { DTYPES, isDType, type DType } from '../base/dtype.js';
import { elementsOf, isArray, isInstance, rangeError, received, typeError } from '../base/errors.js';
import { isMemory, movedAway } from '../memory/memory-view.js';
import { checkScalar } from '../base/scalar.js';
import { isTypedPointer, pointee } from './kernel-types.js';
import type { DeviceEngine } from '../device/device-engine.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import type { ParamType, Signature, StructParam } from './kernel-types.js';
import { GraphCondition } from '../device/condition.js';
import { LAUNCH_BLOCK } from '../native/launch-block.js';

/** Bytes of launch header before the arguments (checked against the addon's at load). */
export const HEADER_BYTES = LAUNCH_BLOCK.headerBytes;
/** The 32-bit word of the header where the stream handle starts. */
export const STREAM_WORD = LAUNCH_BLOCK.streamOffset / 4;

export function describeParam(p: ParamType): string {
  return typeof p === 'string' ? p : `struct(${p.struct})`;
}

/** Throws the TypeError for `args` that are not an array of one argument per parameter of `signature`. */
export function wrongArgCount(signature: Signature, args: unknown): never {
  return isArray(args)
    ? typeError('args', `${signature.length} arguments (${signature.map(describeParam).join(', ')})`, received(`${args.length}`))
    : typeError('args', 'an array of kernel arguments', args);
}

export function paramLayout(p: ParamType): { size: number; align: number } {
  // The native side sees every pointer as 8 bytes: what it points to is checked here only.
  if (p === 'ptr' || p === 'condition' || isTypedPointer(p)) return { size: 8, align: 8 };
  if (typeof p === 'string') return { size: DTYPES[p].size, align: DTYPES[p].size };
  return { size: p.struct, align: p.align ?? 8 };
}

/** A parameter of compiled code: its size in bytes, and its alignment where the code states it (PTX does). */
export interface CompiledParam {
  readonly size: number;
  readonly offset?: number;
  readonly align?: number;
}

/**
 * Throws a TypeError naming `signature` when it contradicts `params` (nothing is checked when
 * they are unknown): another count, another size, or, for a struct whose alignment the signature
 * states, another alignment.
 */
export function checkCompiledParams(signature: Signature, params: readonly CompiledParam[] | null): void {
  if (!params) return;
  const sizes = signature.map((p) => paramLayout(p).size);
  if (params.length !== sizes.length || params.some((p, i) => p.size !== sizes[i]))
    typeError(
      'signature',
      `${params.length} parameters of ${params.map((p) => p.size).join(', ') || 'no'} bytes, as the kernel declares`,
      received(`[${signature.map(describeParam).join(', ')}] (${sizes.join(', ') || 'no'} bytes)`),
    );
  signature.forEach((p, i) => {
    const align = params[i]!.align;
    if (typeof p === 'object' && p.align !== undefined && align !== undefined && p.align !== align)
      typeError(`signature[${i}]`, `{ struct: ${p.struct}, align: ${align} }, as the kernel declares`, received(`{ struct: ${p.struct}, align: ${p.align} }`));
  });
}

export function checkSignature(signature: unknown): asserts signature is Signature {
  readSignature(signature);
}

/**
 * The signature as plain frozen data, each element and struct field read once (what is checked
 * is what is used, whatever getters or proxies it was given as).
 * @throws TypeError naming the signature or the element that is not a parameter type.
 */
export function readSignature(signature: unknown): Signature {
  if (!isArray(signature)) typeError('signature', 'an array of parameter types', signature);
  const params = elementsOf(signature); // a hole is refused, not skipped
  return Object.freeze(params.map((p: unknown, i): ParamType => {
    if (p === 'ptr' || p === 'condition' || isDType(p) || isTypedPointer(p)) return p;
    const struct = readStruct(p);
    if (struct) return struct;
    typeError(`signature[${i}]`, `one of ${Object.keys(DTYPES).join(', ')}, 'ptr', 'ptr<dtype>' (e.g. 'ptr<f32>'), 'condition' or { struct: bytes, align? }`, p);
  }));
}

function readStruct(p: unknown): StructParam | undefined {
  if (typeof p !== 'object' || p === null) return undefined;
  let struct: unknown, align: unknown;
  try {
    ({ struct, align } = p as StructParam);
  } catch {
    return undefined; // a revoked proxy, a getter that throws
  }
  if (typeof struct !== 'number' || !Number.isInteger(struct) || struct <= 0) return undefined;
  if (align === undefined) return Object.freeze({ struct });
  if (typeof align !== 'number' || ![1, 2, 4, 8, 16].includes(align)) return undefined;
  return Object.freeze({ struct, align });
}

/** The error for argument i that failed the packer's inline check. */
export function badArgument(signature: Signature, device: DeviceEngine, i: number, value: unknown): never {
  const p = signature[i]!;
  const name = `args[${i}]`;
  if (p === 'ptr' || isTypedPointer(p)) {
    const dtype = p === 'ptr' ? undefined : pointee(p);
    if (isMemory(value)) {
      if (value.allocation.freed) typeError(name, 'open memory', received(`a closed ${value.constructor.name}`));
      const moved = movedAway(value);
      if (moved) typeError(name, 'memory whose array is attached', received(moved));
      if (dtype && value.dtype !== dtype) typeError(name, `memory of ${dtype} (${p})`, received(`a ${value.constructor.name} of ${value.dtype}`));
      rangeError(name, `memory of ${device}`, received(`memory of ${value.allocation.device}`));
    }
    if (dtype) typeError(name, `a DeviceArray or HostArray of ${dtype} (${p}; a raw address needs 'ptr')`, value);
    typeError(name, 'a DeviceArray, a HostArray or a device address as a bigint (ptr)', value);
  }
  if (p === 'condition') badCondition(name, value);
  if (typeof p === 'string') {
    checkScalar(name, p, value);
    typeError(name, p, value);
  }
  const size = p.struct;
  typeError(name, `${size} bytes (an ArrayBuffer or a view) for struct(${size})`, value);
}

/**
 * The bytes of a struct argument, a view of the ArrayBuffer or view given, as its slots measure it
 * (buffers.ts); undefined for anything else.
 */
export function bytesOfStruct(value: unknown): Uint8Array | undefined {
  return bytesOf(value);
}

/**
 * Throws what a launch would throw for `value` as argument `i`, where that needs no launch: an
 * argument given once, before any launch is made. Memory is checked for being open and of the
 * pointer's element type, not for its device (the kernel may launch on the lanes of several).
 */
export function checkArgument(signature: Signature, device: DeviceEngine, i: number, value: unknown): void {
  const p = signature[i]!;
  if (p === 'ptr' || isTypedPointer(p)) {
    const fits = isMemory(value)
      ? !value.allocation.freed && (p === 'ptr' || value.dtype === pointee(p))
      : p === 'ptr' && typeof value === 'bigint' && value >= 0n && value < 2n ** 64n;
    if (!fits) badArgument(signature, device, i, value);
  } else if (p === 'condition') {
    if (!isInstance(value, GraphCondition)) badCondition(`args[${i}]`, value);
  } else if (typeof p === 'string') checkScalar(`args[${i}]`, p, value);
  else if (bytesOfStruct(value)?.byteLength !== p.struct) badArgument(signature, device, i, value);
}

/**
 * The error for a `'condition'` argument the packer refused: not a condition, or one given to a
 * launch that is not recorded into a graph (a condition exists in its graph's launches alone).
 */
function badCondition(name: string, value: unknown): never {
  if (!isInstance<GraphCondition>(value, GraphCondition)) typeError(name, "a GraphCondition ('condition')", value);
  if (value.scope.root.closed) typeError(name, 'a condition of an open graph', received(`${value.name} of a closed graph`));
  typeError(name, 'a condition given to a launch recorded into its graph (inside the capture, or by graph.addKernel)', received(`${value.name} given to a launch on a stream`));
}

/**
 * The packer's lines for a pointer at byte `at`: memory (of `dtype` only, for a typed pointer) is
 * passed by its address and noted as used on the lane; a plain pointer also takes an address.
 */
function pointer(at: number, bad: string, dtype: DType | undefined): string[] {
  // Memory itself, never a Proxy of it, whose traps could answer any address.
  const memory = `typeof v === 'object' && v !== null && isMemory(v)${dtype ? ` && v.dtype === '${dtype}'` : ''}`;
  const address = dtype ? '' : `else if (typeof v === 'bigint' && v >= 0n && v < 2n ** 64n) u64[${at / 8}] = v; `;
  return [
    `if (${memory}) { if (!usableOn(v, device, lane)) ${bad}; u32[${at / 4}] = v.lo; u32[${at / 4 + 1}] = v.hi; }`,
    `${address}else ${bad};`,
  ];
}

/**
 * What the packer throws for `error`: the error itself when it is one of the packer's own, else
 * (a check threw, on a revoked proxy) the error that names the argument which made it throw.
 */
function unexpected(signature: Signature, device: DeviceEngine, args: unknown, error: unknown): never {
  if (!isArray(args)) typeError('args', 'an array of kernel arguments', args);
  for (let i = 0; i < signature.length; i++) {
    let value: unknown;
    try {
      value = args[i];
      if (typeof value === 'object' && value !== null) Object.getPrototypeOf(value); // throws for a revoked proxy
    } catch {
      badArgument(signature, device, i, value);
    }
  }
  throw error;
}

/**
 * Builds the packer for a signature: straight-line code with one inline check and one store per
 * parameter, no allocation and no lookups by name.
 */
export function buildPacker(signature: Signature, offsets: number[], views: Record<string, unknown>) {
  const lines = [
    `if (!Array.isArray(a) || a.length !== ${signature.length}) wrongCount(a);`,
    'let v;',
  ];
  signature.forEach((p, i) => {
    const at = HEADER_BYTES + offsets[i]!;
    const bad = `bad(${i}, v)`;
    lines.push(`v = a[${i}];`);
    if (isTypedPointer(p)) {
      lines.push(...pointer(at, bad, pointee(p)));
      return;
    }
    switch (p) {
      case 'i8': lines.push(`if (typeof v !== 'number' || (v << 24 >> 24) !== v) ${bad}; i8[${at}] = v;`); break;
      case 'u8': lines.push(`if (typeof v !== 'number' || (v & 0xff) !== v) ${bad}; u8[${at}] = v;`); break;
      case 'i16': lines.push(`if (typeof v !== 'number' || (v << 16 >> 16) !== v) ${bad}; i16[${at / 2}] = v;`); break;
      case 'u16': lines.push(`if (typeof v !== 'number' || (v & 0xffff) !== v) ${bad}; u16[${at / 2}] = v;`); break;
      case 'i32': lines.push(`if (typeof v !== 'number' || (v | 0) !== v) ${bad}; i32[${at / 4}] = v;`); break;
      case 'u32': lines.push(`if (typeof v !== 'number' || (v >>> 0) !== v) ${bad}; u32[${at / 4}] = v;`); break;
      // A finite float that the type's rounding makes infinite is beyond its range: refused (x - x is 0 for finite x alone).
      case 'f16': lines.push(`if (typeof v !== 'number') ${bad}; u16[${at / 2}] = half(v); if ((u16[${at / 2}] & 0x7c00) === 0x7c00 && v - v === 0) ${bad};`); break;
      case 'bf16': lines.push(`if (typeof v !== 'number') ${bad}; u16[${at / 2}] = bhalf(v); if ((u16[${at / 2}] & 0x7f80) === 0x7f80 && v - v === 0) ${bad};`); break;
      case 'f32': lines.push(`if (typeof v !== 'number') ${bad}; f32[${at / 4}] = v; if (f32[${at / 4}] - f32[${at / 4}] !== 0 && v - v === 0) ${bad};`); break;
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
        lines.push(...pointer(at, bad, undefined));
        break;
      // A condition's token, for a launch recorded into a graph (or a graph's own node: no lane).
      case 'condition':
        lines.push(`if (typeof v === 'object' && v !== null && isCondition(v) && (lane === undefined || lane.recorder !== undefined)) { u32[${at / 4}] = conditionLo(v); u32[${at / 4 + 1}] = conditionHi(v); } else ${bad};`);
        break;
      default:
        lines.push(`u8.set(structBytes(${i}, v, ${p.struct}), ${at});`);
    }
  });
  // Some checks (Array.isArray, a struct's bytes) throw on a revoked proxy: such a throw is turned
  // into the error that names the argument, off the fast path.
  views = { ...views, unexpected: (a: unknown, error: unknown) => unexpected(signature, views.device as DeviceEngine, a, error) };
  const names = Object.keys(views);
  // The source is assembled from fixed templates, numbers and element type names checked against
  // DTYPES: no user text reaches it.
  const factory = new Function(...names, `return (a, lane) => {\ntry {\n${lines.join('\n')}\n} catch (error) { unexpected(a, error); }\n};`);
  return factory(...names.map((n) => views[n])) as (args: readonly unknown[], lane: StreamEngine | undefined) => void;
}

