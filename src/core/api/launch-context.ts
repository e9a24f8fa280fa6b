// The launch context: an immutable view of one launch (kernel, configuration, stream, arguments,
// specialization) for the code that acts on its behalf: pre-launch hooks, specializers and CPU
// implementations, which find it with currentLaunch(). Nothing here runs when no hook, specializer
// or CPU implementation is involved: a plain launch never builds a context.
import { bytesOf } from '../base/buffers.js';
import { RxcudaError, elementsOf } from '../base/errors.js';
import type { DType } from '../base/dtype.js';
import { current } from '../kernels/current-launch.js';
import type { Kernel, KernelArgs } from './kernel.js';
import type { Signature } from '../kernels/kernel-types.js';
import type { LaunchConfig } from '../kernels/launch-config.js';
import { Memory } from './memory.js';
import type { Stream } from './stream.js';

import type { Defines } from '../compiler/program.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

export type { Defines } from '../compiler/program.js';

/** At most this many arguments are spelled out by {@link LaunchContext.toString}. */
const SHOWN_ARGUMENTS = 8;

function dims(d: readonly [number, number, number]): string {
  return `${d[0]}×${d[1]}×${d[2]}`;
}

function describeArgument(value: unknown): string {
  if (value instanceof Memory) return `${value.constructor.name}<${value.dtype as DType}>[${value.length}]`;
  if (typeof value === 'bigint') return `0x${value.toString(16)}`;
  if (typeof value === 'number') return String(value);
  const bytes = bytesOf(value);
  if (bytes !== undefined) return `struct(${bytes.byteLength} B)`;
  return typeof value;
}

/** The context of one launch of `kernel`, which the launch makes for its hooks and specializations. */
export let makeLaunchContext: <S extends Signature>(kernel: Kernel<S>, config: LaunchConfig, stream: Stream, args: readonly unknown[], defines?: Defines, copied?: boolean) => LaunchContext<S>;

/**
 * One launch, as the code acting on its behalf sees it: pre-launch hooks, specializers and CPU
 * implementations get it as an argument or through {@link currentLaunch}. It is immutable: the
 * object is frozen, its fields are read-only, its arrays are frozen, and the argument list is a
 * copy made when the launch began (its memory arguments are the arrays themselves).
 */
export class LaunchContext<S extends Signature = Signature> {
  readonly #kernel: Kernel<S>;
  readonly #config: LaunchConfig;
  readonly #stream: Stream;
  // A private copy, taken at once; frozen when first read (most hooks never read it).
  readonly #args: readonly unknown[];
  #frozenArgs: KernelArgs<S> | undefined;
  readonly #defines: Defines | undefined;

  static #make<S extends Signature>(kernel: Kernel<S>, config: LaunchConfig, stream: Stream, args: readonly unknown[], defines?: Defines, copied = false): LaunchContext<S> {
    return new LaunchContext(CONSTRUCTOR_TOKEN, kernel, config, stream, args, defines, copied);
  }

  private constructor(token: ConstructorToken, kernel: Kernel<S>, config: LaunchConfig, stream: Stream, args: readonly unknown[], defines?: Defines, copied = false) {
    checkConstructorToken(token, 'a LaunchContext', 'currentLaunch() in a launch hook or a CPU kernel: each launch makes its own');
    this.#kernel = kernel;
    this.#config = config;
    this.#stream = stream;
    this.#args = copied ? args : elementsOf(args); // a plain copy (slice() would make what the array's species says)
    this.#defines = defines && (Object.isFrozen(defines) ? defines : Object.freeze({ ...defines }));
    Object.freeze(this);
  }

  /** The kernel launched (the replacement, once a hook replaced it). */
  get kernel(): Kernel<S> {
    return this.#kernel;
  }

  /** The launch configuration; its fields are repeated below. */
  get config(): LaunchConfig {
    return this.#config;
  }

  /** Blocks in the grid, x/y/z. */
  get grid(): readonly [number, number, number] {
    return this.#config.grid;
  }

  /** Threads in a block, x/y/z. */
  get block(): readonly [number, number, number] {
    return this.#config.block;
  }

  /** Dynamic shared memory per block, in bytes. */
  get sharedMem(): number {
    return this.#config.sharedMem;
  }

  /** Blocks per cluster, or undefined. */
  get cluster(): readonly [number, number, number] | undefined {
    return this.#config.cluster;
  }

  /** Whether the launch is cooperative. */
  get cooperative(): boolean {
    return this.#config.cooperative;
  }

  /** The stream the launch is enqueued on. */
  get stream(): Stream {
    return this.#stream;
  }

  /** The arguments: a frozen copy of those given (or of a hook's replacement). */
  get args(): KernelArgs<S> {
    return (this.#frozenArgs ??= Object.freeze(this.#args.slice()) as unknown as KernelArgs<S>);
  }

  /** The specialization's defines, once a specializer has given them; undefined before. */
  get defines(): Defines | undefined {
    return this.#defines;
  }

  /** @internal The arguments as given, for the launch itself (nobody else holds this copy). */
  get given(): KernelArgs<S> {
    return this.#args as unknown as KernelArgs<S>;
  }

  /** @internal The same launch with some of it replaced. */
  with(changes: { readonly kernel?: Kernel<S>; readonly args?: readonly unknown[]; readonly defines?: Defines }): LaunchContext<S> {
    const args = changes.args ?? this.#args;
    return new LaunchContext(CONSTRUCTOR_TOKEN, changes.kernel ?? this.#kernel, this.#config, this.#stream, args, changes.defines ?? this.#defines, args === this.#args);
  }

  /**
   * A line for people, bounded in length whatever the arguments: e.g.
   * `saxpy<<<4096×1×1, 256×1×1>>>(1048576, 2, DeviceArray<f32>[1048576], …) on a stream of device 0`.
   * @example
   * onLaunch((launch) => console.log(`${launch}`)); // saxpy<<<4096×1×1, 256×1×1>>>(…) on a stream of device 0
   */
  toString(): string {
    const shown = this.#args.slice(0, SHOWN_ARGUMENTS).map(describeArgument);
    const more = this.#args.length - shown.length;
    if (more > 0) shown.push(`… ${more} more`);
    const extras = [
      this.sharedMem ? `${this.sharedMem} B shared` : '',
      this.cluster ? `cluster ${dims(this.cluster)}` : '',
      this.cooperative ? 'cooperative' : '',
      this.#defines ? `defines ${JSON.stringify(this.#defines).slice(0, 60)}` : '',
    ].filter(Boolean);
    const name = this.#kernel.name.length > 40 ? `${this.#kernel.name.slice(0, 39)}…` : this.#kernel.name;
    return `${name}<<<${dims(this.grid)}, ${dims(this.block)}>>>(${shown.join(', ')})${extras.length ? ` [${extras.join(', ')}]` : ''} on a stream of ${this.#stream.device}`;
  }
  static {
    makeLaunchContext = (kernel, config, stream, args, defines, copied) => LaunchContext.#make(kernel, config, stream, args, defines, copied);
  }
}

/** No launch is current where {@link currentLaunch} was called. */
export class NoCurrentLaunchError extends RxcudaError {
  /** The class's name, `NoCurrentLaunchError`. */
  override readonly name = 'NoCurrentLaunchError';

  constructor() {
    super(
      'currentLaunch() has no launch here: call it inside a pre-launch hook (onLaunch, kernel.onLaunch or the launch ' +
        "operator's `hooks`), a specializer, or a CPU implementation running for the host device.",
    );
  }
}

/**
 * The launch that the calling code runs for: inside a pre-launch hook, a specializer (also after
 * an `await` in it) or a CPU implementation running for the host device. A launch made from inside
 * a hook has its own context, and the outer one is current again once it returns.
 * @example
 * onLaunch(() => console.log(`launching ${currentLaunch()}`));
 * @returns the current {@link LaunchContext}.
 * @throws NoCurrentLaunchError anywhere else.
 */
export function currentLaunch(): LaunchContext {
  const context = current();
  if (!context) throw new NoCurrentLaunchError();
  return context as LaunchContext;
}
