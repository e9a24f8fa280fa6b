// The engine of kernels specialized by their launch (a template's, api/template.ts, whose
// specializer is a public Specializer): a specializer turns a launch's context into compile-time
// defines; each distinct set is compiled once (and cached on disk by the compiler's cache), and
// a launch whose specialization is not ready waits in its stream's queue (scheduler.ts), never
// blocking the main thread. It names the kernels and the context by what it needs of them.
import { checkDefines, type Defines } from '../compiler/program.js';
import type { Recorder } from '../device/recorder.js';
import { reportFailure } from '../queue/failure-route.js';
import type { Pause } from '../queue/scheduler.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { withLaunch } from './current-launch.js';
import type { HookFailure } from './launch-hooks.js';
import type { LaunchConfig } from './launch-config.js';
import { isThenable } from '../base/thenable.js';

/**
 * A kernel as its specializations need it: the kernel launched and each of its specializations
 * (a public Kernel is one), launched with contexts `C`.
 */
export interface SpecializedKernel<C> {
  readonly name: string;
  readonly module: {
    /** Whether its compiled code came from the disk cache. */
    readonly fromCache: boolean;
    readonly engine: { usedOn(lane: StreamEngine): void };
  };
  readonly engine: {
    packed(config: LaunchConfig, args: readonly unknown[], lane?: StreamEngine): Uint8Array;
    enqueueIn(context: C): void;
    submitPacked(lane: StreamEngine, config: LaunchConfig, bytes: Uint8Array, args: readonly unknown[], context: C): Pause | void;
  };
}

/**
 * A launch's context as specializations need it (a public LaunchContext is one): `with` makes the
 * same launch of a specialization.
 */
export interface SpecializedLaunch<C> {
  readonly kernel: SpecializedKernel<C>;
  readonly stream: { readonly engine: StreamEngine<Recorder> };
  readonly config: LaunchConfig;
  /** The arguments as given: the launch's own copy. */
  readonly given: readonly unknown[];
  with(changes: { readonly kernel?: SpecializedKernel<C>; readonly defines?: Defines }): C;
}

interface Variant<C> {
  readonly defines: Defines;
  readonly ready: Promise<SpecializedKernel<C>>;
  kernel: SpecializedKernel<C> | undefined;
}


/** The same for the same macros, in any order: `NAME=value` pairs sorted by name. */
function keyOf(defines: unknown): string {
  const unknown = '\0'; // no set of defines spells this: what is not one is then checked, and refused
  if (typeof defines !== 'object' || defines === null) return unknown;
  try {
    const names = Object.keys(defines);
    if (names.length > 1) names.sort();
    let key = '';
    for (const name of names) key += `${name}=${String((defines as Record<string, unknown>)[name])};`;
    return key;
  } catch {
    return unknown;
  }
}


/**
 * The specializations of one kernel, made by `make` from the defines `specializer` gives a
 * launch's context; `failed` makes the error of a specializer that threw or gave bad defines.
 */
export class Specializations<C extends SpecializedLaunch<C>> {
  readonly #specializer: (context: C) => Defines | PromiseLike<Defines>;
  readonly #make: (defines: Defines) => Promise<SpecializedKernel<C>>;
  readonly #failed: HookFailure<C>;
  readonly #variants = new Map<string, Variant<C>>();
  readonly #async: boolean;

  constructor(specializer: (context: C) => Defines | PromiseLike<Defines>, make: (defines: Defines) => Promise<SpecializedKernel<C>>, failed: HookFailure<C>) {
    this.#specializer = specializer;
    this.#make = make;
    this.#failed = failed;
    this.#async = specializer.constructor.name === 'AsyncFunction';
  }

  /** The specializations compiled so far. */
  compiled(): { readonly defines: Defines; readonly fromCache: boolean }[] {
    return [...this.#variants.values()].flatMap((v) => (v.kernel ? [{ defines: v.defines, fromCache: v.kernel.module.fromCache }] : []));
  }

  /**
   * Launches in the specialization of `context`: at once when it is ready, else from the stream's
   * queue once it is (the arguments are checked now). A failure to make it goes to `onFailure`,
   * or to the stream's `error` event.
   * @throws what `failed` makes (a LaunchHookError) when the specializer throws or gives bad
   * defines; TypeError for bad arguments. Nothing is enqueued then.
   */
  launch(context: C, onFailure: ((error: unknown) => void) | undefined): void {
    const given = this.#definesOf(context);
    if (!isThenable(given)) {
      const variant = this.#variant(context, given);
      if (variant.kernel) return variant.kernel.engine.enqueueIn(context.with({ kernel: variant.kernel, defines: variant.defines }));
      return this.#whenReady(context, variant.ready.then((kernel) => [kernel, variant.defines] as const), onFailure);
    }
    const ready = Promise.resolve(given).then((defines) => {
      const variant = this.#variant(context, defines);
      return variant.ready.then((kernel) => [kernel, variant.defines] as const);
    });
    this.#whenReady(context, ready, onFailure);
  }

  #definesOf(context: C): Defines | PromiseLike<Defines> {
    try {
      // Only an async function needs the context carried across its awaits (which costs more).
      return withLaunch(context, () => this.#specializer(context), this.#async);
    } catch (error) {
      throw this.#failed(`specializer ${this.#specializer.name || '(anonymous)'}`, context, error);
    }
  }

  #variant(context: C, given: unknown): Variant<C> {
    const known = this.#variants.get(keyOf(given));
    if (known) return known; // its defines were checked when it was made, and spell the same
    let defines: Defines;
    try {
      defines = checkDefines(given);
    } catch (error) {
      throw this.#failed(`specializer ${this.#specializer.name || '(anonymous)'}`, context, error);
    }
    const key = keyOf(defines);
    const frozen = Object.freeze({ ...defines });
    const variant: Variant<C> = {
      defines: frozen,
      kernel: undefined,
      ready: this.#make(frozen).then(
        (kernel) => (variant.kernel = kernel),
        (error: unknown) => {
          this.#variants.delete(key); // a later launch tries again
          throw error;
        },
      ),
    };
    variant.ready.catch(() => {}); // every launch waiting for it hears of the failure
    this.#variants.set(key, variant);
    return variant;
  }

  /** Checks the arguments now; the launch waits in the stream's queue until `ready`. */
  #whenReady(context: C, ready: Promise<readonly [SpecializedKernel<C>, Defines]>, onFailure: ((error: unknown) => void) | undefined): void {
    const { config, given: args } = context;
    const lane = context.stream.engine;
    lane.recorder?.interrupt(`A launch of ${context.kernel.name} whose specialization is still compiling (launch it once before capturing)`);
    const bytes = context.kernel.engine.packed(config, args, lane);
    const fail = (error: unknown) => {
      if (onFailure) onFailure(error);
      else reportFailure(lane.listeners, error, { kind: 'enqueue', name: `launch(${context.kernel.name})` });
    };
    // The specialization's module learns of this stream as soon as it is made, so that closing it
    // (or its template) before the queue gets to this launch waits for it.
    ready.then(([kernel]) => kernel.module.engine.usedOn(lane), () => {});
    lane.run(() => (resume) => {
      ready.then(
        ([kernel, defines]) => {
          let pause;
          try {
            pause = kernel.engine.submitPacked(lane, config, bytes, args, context.with({ kernel, defines }));
          } catch (error) {
            fail(error);
          }
          if (pause) pause(resume);
          else resume();
        },
        (error: unknown) => {
          fail(error);
          resume();
        },
      );
    });
  }
}
