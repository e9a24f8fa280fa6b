// Error classes (one base, RxcudaError) that the addon throws as real instances, and the argument
// checks that produce TypeError/RangeError messages of one shape: Expected `name` to be …, got ….
import { types } from 'node:util';
import { bufferOf, isDetached, isView, lengthOf, typedArrayName } from './buffers.js';

/**
 * The base class of the errors rxcuda defines for failures, so that `error instanceof RxcudaError`
 * tells a failure of rxcuda or of the CUDA libraries under it from any other. Bad arguments are
 * `TypeError`s and `RangeError`s, as in Node's own APIs ({@link ArgumentTypeError},
 * {@link ArgumentRangeError}, with Node's string codes); {@link isRxcudaError} tells both kinds.
 *
 * `code` is always a number or undefined: the status number of the library that failed, where
 * there is one ({@link CudaError}: the `CUresult`; {@link NvrtcError}: the `nvrtcResult`), and
 * undefined where the class and its fields say it all (`PipelineError`: look at its `cause`).
 * Tell errors apart by class first, then by `code` within a class.
 *
 * @example
 * try {
 *   await stream.synchronized();
 * } catch (error) {
 *   if (error instanceof CudaError && error.sticky) restart();
 *   else if (error instanceof RxcudaError) report(error.name, error.code);
 *   else throw error;
 * }
 */
export class RxcudaError extends Error {
  /** The failing library's status number, or undefined where there is none (see the class). */
  readonly code: number | undefined;
  /** The class's name (`RxcudaError`, or a subclass's). */
  override readonly name: string = 'RxcudaError';

  /**
   * @param message what failed.
   * @param code the failing library's status number, if any.
   * @param options `cause`: the error this one reports.
   */
  constructor(message: string, code?: number, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The codes of rxcuda's argument errors, Node's own where Node has one: `ERR_INVALID_ARG_TYPE`
 * (a value of the wrong type or kind, a closed object among them), `ERR_INVALID_ARG_VALUE` (of
 * the right kind, but not usable so: both of two exclusive options, a template's kernel asked for
 * what only its specializations have), `ERR_UNKNOWN_OPTION` (an
 * options object's key that no option has), `ERR_ILLEGAL_CONSTRUCTOR` (a class made without its
 * factory); and `ERR_OUT_OF_RANGE` for a {@link ArgumentRangeError}.
 */
export type ArgumentTypeErrorCode = 'ERR_INVALID_ARG_TYPE' | 'ERR_INVALID_ARG_VALUE' | 'ERR_UNKNOWN_OPTION' | 'ERR_ILLEGAL_CONSTRUCTOR';

/**
 * A bad argument, refused before anything was enqueued: a `TypeError` (its `name` too, as Node's
 * argument errors), with a Node-style `code`. The message names the argument, what it should be
 * and what it was: ``Expected `block` to be …, got …``.
 * @example
 * try {
 *   stream.alloc('f33', 4);
 * } catch (error) {
 *   if (error instanceof TypeError && error.code === 'ERR_INVALID_ARG_TYPE') console.error(error.message);
 * }
 */
export class ArgumentTypeError extends TypeError {
  /** What kind of bad argument it is (see {@link ArgumentTypeErrorCode}). */
  declare readonly code: ArgumentTypeErrorCode;

  /**
   * @param message the argument, what it should be and what it was.
   * @param code what kind of bad argument it is.
   */
  constructor(message: string, code: ArgumentTypeErrorCode = 'ERR_INVALID_ARG_TYPE') {
    super(message);
    setCode(this, code);
  }
}

/**
 * Gives an argument error its `code`, not enumerable, as its `name` and `message` are: deep
 * comparisons of errors (by their enumerable own fields) take it for the TypeError or RangeError
 * of its message, as before it had a code.
 */
function setCode(error: Error, code: string): void {
  Object.defineProperty(error, 'code', { value: code, writable: true, configurable: true, enumerable: false });
}

/**
 * An argument out of its range (a count, a size, an index, a value a kernel's type cannot hold),
 * refused before anything was enqueued: a `RangeError` (its `name` too), with Node's code
 * `ERR_OUT_OF_RANGE`.
 */
export class ArgumentRangeError extends RangeError {
  /** Always `ERR_OUT_OF_RANGE`. */
  declare readonly code: 'ERR_OUT_OF_RANGE';

  /** @param message the argument, its range and what it was. */
  constructor(message: string) {
    super(message);
    setCode(this, 'ERR_OUT_OF_RANGE');
  }
}

/**
 * Whether `error` is one of rxcuda's own: an {@link RxcudaError} (a failure) or an argument error
 * ({@link ArgumentTypeError}, {@link ArgumentRangeError}). JavaScript classes have one parent, and
 * rxcuda's argument errors are `TypeError`s and `RangeError`s as Node's are, so this, not
 * `instanceof RxcudaError`, tells all of them from the errors of other code.
 * @example
 * if (!isRxcudaError(error)) throw error; // not rxcuda's: let it go on
 */
export function isRxcudaError(error: unknown): error is RxcudaError | ArgumentTypeError | ArgumentRangeError {
  return isInstance(error, RxcudaError) || isInstance(error, ArgumentTypeError) || isInstance(error, ArgumentRangeError);
}

/** A CUDA driver call failed. */
export class CudaError extends RxcudaError {
  /** The CUresult number, e.g. 1 for CUDA_ERROR_INVALID_VALUE. */
  declare readonly code: number;
  /** The CUresult name, e.g. `CUDA_ERROR_INVALID_VALUE`. */
  override readonly name: string;
  /** The driver call that failed, e.g. `cuLaunchKernelEx`. */
  readonly call: string;

  constructor(code: number, name: string, call: string, message: string) {
    super(message, code);
    this.name = name;
    this.call = call;
  }

  /** Errors after which the context cannot be used again (illegal address, launch failure, …). */
  get sticky(): boolean {
    return STICKY.has(this.code);
  }
}

const STICKY = new Set([700, 714, 715, 716, 717, 718, 719, 720]);

/** NVRTC failed to compile a program; `log` holds the compiler's output. */
export class NvrtcError extends RxcudaError {
  /** The nvrtcResult number (-1 when NVRTC itself could not be loaded). */
  declare readonly code: number;
  /** The compiler's log: errors and warnings with line numbers. */
  readonly log: string;
  /** The class's name, `NvrtcError`. */
  override readonly name = 'NvrtcError';

  constructor(code: number, message: string, log: string) {
    super(log ? `${message}\n${log}` : message, code);
    this.log = log;
  }
}

/**
 * A host step with a `timeout` did not settle in time: rxcuda gave it up, and its stream went on
 * without it (a later settle of the step is ignored). Reported through the stream's `error` event,
 * or to a pipeline's subscriber as the `cause` of a `PipelineError`. `code` is undefined: the
 * class and its fields say it all.
 *
 * @example
 * stream.on('error', (error) => {
 *   if (error instanceof HostStepTimeoutError) console.warn(`${error.step} gave up after ${error.timeout} ms`);
 * });
 * stream.hostLaunch(() => fetchLabels(), { timeout: 5_000 });
 */
export class HostStepTimeoutError extends RxcudaError {
  /** The class's name, `HostStepTimeoutError`. */
  override readonly name = 'HostStepTimeoutError';
  declare readonly code: undefined;
  /** The step's name, as the stream's `error` event's context gives it. */
  readonly step: string;
  /** The timeout it was given, in milliseconds. */
  readonly timeout: number;

  /**
   * @param step the step's name.
   * @param timeout its timeout, in milliseconds.
   */
  constructor(step: string, timeout: number) {
    super(`The host step ${step} did not settle within ${timeout} ms: it was given up, and its stream went on`);
    this.step = step;
    this.timeout = timeout;
  }
}

/**
 * Why a graph operation was refused: `forbidden` (a capture was given work a graph cannot hold;
 * the capture ended), `capturing` (the stream is already capturing), `nested` (a capture started
 * inside another capture's function), `topology` (an update whose graph or arguments differ in
 * more than addresses and values), `body` (work that the body of a conditional node cannot hold:
 * a JavaScript step, an event record or wait, a native host function), `condition` (a
 * {@link GraphCondition} used outside the graph, or the part of it, that made it, or used twice).
 */
export type GraphErrorReason = 'forbidden' | 'capturing' | 'nested' | 'topology' | 'body' | 'condition';

/**
 * A graph capture, launch or update was refused; `reason` says which rule, the message what was
 * asked. Nothing was enqueued. `code` is undefined: the class and `reason` say it all.
 */
export class GraphError extends RxcudaError {
  /** The class's name, `GraphError`. */
  override readonly name = 'GraphError';
  declare readonly code: undefined;
  /** Which rule refused it. */
  readonly reason: GraphErrorReason;

  /**
   * @param reason which rule refused it.
   * @param message what was asked, and what to do instead.
   */
  constructor(reason: GraphErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** What a failure says, for a warning: never throws, whatever was thrown. */
export function describeFailure(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    try {
      return Object.prototype.toString.call(error);
    } catch {
      return `a thrown ${typeof error} that cannot be printed`; // a revoked proxy
    }
  }
}

/** A description of what was received, printed as it is (not quoted) in argument errors. */
export class Received {
  constructor(readonly text: string) {}
}

/** Marks `text` as a description of the value received, e.g. `received('a closed Stream')`. */
export function received(text: string): Received {
  return new Received(text);
}

/** Characters of a rendering at most, and array elements shown at most. */
const MAX_TEXT = 120;
const MAX_ELEMENTS = 8;

/**
 * A human-readable rendering of a value received, for argument errors. Never throws, whatever
 * the value (a revoked proxy, a cycle, an object holding bigints, getters that throw): an error
 * message that fails would hide the error it describes.
 */
export function describe(value: unknown): string {
  try {
    return render(value, 0);
  } catch {
    return `a value that cannot be shown (${typeof value})`;
  }
}

function shorten(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

function render(value: unknown, depth: number, throughProxy = false): string {
  if (value instanceof Received) return value.text;
  switch (typeof value) {
    case 'bigint':
      return `${value}n`;
    case 'string':
      return shorten(JSON.stringify(value));
    case 'symbol':
      return value.toString();
    case 'function':
      return `a function${typeof value.name === 'string' && value.name ? ` ${value.name}` : ''}`;
    case 'object':
      break;
    default:
      return String(value);
  }
  if (value === null) return 'null';
  // A Proxy is no object of rxcuda's, whatever it stands for: say so, and what it says it is.
  if (types.isProxy(value) && !throughProxy) return `a Proxy of ${render(value, depth + 1, true)}`;
  if (Array.isArray(value)) {
    if (depth > 1) return `an array of ${value.length}`;
    const shown = value.slice(0, MAX_ELEMENTS).map((v: unknown) => render(v, depth + 1));
    if (value.length > MAX_ELEMENTS) shown.push(`… ${value.length - MAX_ELEMENTS} more`);
    return shorten(`[${shown.join(', ')}]`);
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === null) return 'an object with a null prototype';
  const constructor: unknown = (value as { constructor?: unknown }).constructor;
  const name = typeof constructor === 'function' ? constructor.name : undefined;
  if (name && name !== 'Object') {
    const article = /^[AEIO]/.test(name) ? 'an' : 'a';
    // A TypedArray says its length (its slot's), so that "too short" can be seen in the message.
    if (!isView(value)) return `${article} ${name}`;
    if (isDetached(bufferOf(value))) return `a detached ${name}`; // say so, rather than "of 0"
    return typedArrayName(value) === undefined ? `${article} ${name}` : `${article} ${name} of ${lengthOf(value)}`;
  }
  // A plain object: shown as JSON, bigints as `1n`, a cycle as "[cycle]".
  const seen = new Set<unknown>();
  const json = JSON.stringify(value, function (this: unknown, _key, v: unknown) {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[cycle]';
      seen.add(v);
    }
    return v;
  });
  return shorten(json ?? String(json));
}

/** The name a function is reported by: its `name` when that is a string, read once. */
export function nameOf(fn: Function): string {
  try {
    const name: unknown = fn.name;
    return typeof name === 'string' && name !== '' ? name : '(anonymous)';
  } catch {
    return '(anonymous)'; // a throwing \`name\` getter
  }
}

/** Throws an {@link ArgumentTypeError} that names the argument, what it should be and what it was. */
export function typeError(name: string, expected: string, got: unknown, code?: ArgumentTypeErrorCode): never {
  throw new ArgumentTypeError(`Expected \`${name}\` to be ${expected}, got ${describe(got)}`, code);
}

/** Throws an {@link ArgumentRangeError} that names the argument, what it should be and what it was. */
export function rangeError(name: string, expected: string, got: unknown): never {
  throw new ArgumentRangeError(`Expected \`${name}\` to be ${expected}, got ${describe(got)}`);
}

/** A non-negative safe integer, or a TypeError/RangeError naming `name`. */
export function checkCount(name: string, value: unknown, min = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) typeError(name, 'an integer', value);
  if (value < min) rangeError(name, `an integer ≥ ${min}`, value);
  if (value > Number.MAX_SAFE_INTEGER) rangeError(name, 'at most 2^53 − 1', value);
  return value;
}

const BRAND: unique symbol = Symbol('rxcuda brand');

/**
 * Gives `Class` the check by which it tells its own objects (`#field in value`) from a Proxy of
 * one, or an object made from its prototype alone, neither of which has its private state:
 * {@link isInstance} asks it before `instanceof`. Called from the class's static block, so that
 * the check is no member of the class's public type.
 * @example
 * class Kernel { #block; static { brand(this, (value) => #block in value); } }
 */
export function brand(Class: Function, check: (value: object) => boolean): void {
  Object.defineProperty(Class, BRAND, { value: check });
}

/** The check {@link brand} gave `Class`. */
export function brandOf(Class: Function): (value: object) => boolean {
  const check = (Class as { readonly [BRAND]?: (value: object) => boolean })[BRAND];
  if (check === undefined) throw new Error(`${Class.name} has no brand`);
  return check;
}

/**
 * `value instanceof Class` for an object that is one itself: false for a Proxy (of one, or
 * revoked), for an object made from `Class.prototype` without its constructor (where the class
 * has a {@link brand}), and where asking throws. Argument checks use it, so that such a value is
 * refused by name before any private member of it is read.
 */
export function isInstance<T>(value: unknown, Class: { readonly prototype: T }): value is T {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    const check = (Class as { readonly [BRAND]?: (value: object) => boolean })[BRAND];
    if (check !== undefined ? !check(value) : types.isProxy(value)) return false;
    return value instanceof (Class as unknown as Function);
  } catch {
    return false;
  }
}

/**
 * The elements of `array`, read once each into a plain array, a hole read as undefined: where
 * `slice` keeps holes and `every`, `some`, `forEach` and `map` skip them, a check of the copy
 * refuses `[2, , 3]` as it refuses `[2, undefined, 3]`.
 */
export function elementsOf(array: readonly unknown[]): unknown[] {
  const length = array.length;
  const elements = new Array<unknown>(length);
  for (let i = 0; i < length; i++) elements[i] = array[i];
  return elements;
}

/** `Array.isArray`, and false where asking throws (a revoked proxy). */
export function isArray(value: unknown): value is readonly unknown[] {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}
