// What a template's kernels are specialized by: a function from a launch's context to the
// compile-time defines it launches with. Their engine (kernels/specializations.ts) compiles each
// distinct set once, and launches in it.
import type { LaunchContext } from './launch-context.js';
import type { Defines } from '../compiler/program.js';
import type { Signature } from '../kernels/kernel-types.js';

/**
 * Computes a launch's compile-time defines from its context, e.g.
 * `(launch) => ({ BLOCK_THREADS: launch.block[0] })`; it may be async (the context stays current
 * across its awaits).
 */
export type Specializer<S extends Signature = Signature> = (context: LaunchContext<S>) => Defines | PromiseLike<Defines>;
