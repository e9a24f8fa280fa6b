// A condition of a graph: the value a conditional node (if, if/else, while, switch) reads, set by
// kernels on the device. It belongs to the graph, or the body of a conditional node, that made it;
// its conditional node goes there, and kernels there or in the bodies below set it. On CUDA it is a
// driver handle made for each native graph, which kernels receive as a 'condition' argument (the
// launch block holds a token until then); on the host device it is a value that the replay of an
// executable keeps for each launch. Here, below kernels/, because a kernel takes it as an argument.
import { brand, GraphError, isInstance, rangeError, typeError } from '../base/errors.js';
import { CONSTRUCTOR_TOKEN, checkConstructorToken, type ConstructorToken } from '../base/constructor-token.js';

/** The scopes a condition lives in: a graph or the body of one of its conditional nodes. */
export interface ConditionScope {
  /** The top-level graph. */
  readonly root: ConditionScope;
  /** The graph or body this one is a body of, if it is one. */
  readonly parent: ConditionScope | undefined;
  readonly closed: boolean;
}

let serial = 0;

/** A new condition of `scope` (a graph or a capture's), the `index`th of its graph, at `initial`. */
export let makeGraphCondition: (scope: ConditionScope, initial: unknown, index: number) => GraphCondition;

/** Notes that the conditional node `node` uses `condition`. */
export let useCondition: (condition: GraphCondition, node: string) => void;

/**
 * The low 32 bits of `condition`'s token (what a kernel's launch block holds for it until a native
 * graph gives it a handle), as the packer writes them.
 */
export let conditionLo: (condition: GraphCondition) => number;

/** The high 32 bits of `condition`'s token. */
export let conditionHi: (condition: GraphCondition) => number;

/**
 * A condition of a graph: a 32-bit value that kernels set on the device and that a conditional node
 * reads: an `if` runs its body when it is not zero (else its `else` body), a `while` runs its body
 * again as long as it is not zero, a `switch` runs the body of its case. It takes its `initial`
 * value at the start of each launch of an executable. Make one with {@link Graph.condition} or,
 * while capturing, {@link Stream.condition}; pass it to a kernel whose signature declares a
 * `'condition'` parameter, which sets it with `cudaGraphSetConditional(handle, value)` (a
 * `cudaGraphConditionalHandle` in CUDA C++; a CPU implementation calls `set(value)` on what it
 * receives), or set it from memory with {@link Stream.setCondition}.
 *
 * A condition belongs to the graph, or the body of a conditional node, where it was made: one
 * conditional node there uses it, and kernels there or in the bodies below set it.
 */
export class GraphCondition {
  /** The graph or body it was made in, where its conditional node goes. */
  readonly scope: ConditionScope;
  /** The value it takes at the start of each launch. */
  readonly initial: number;
  /** How messages name it: `condition <n>`, from 0 in the order the graph made them. */
  readonly name: string;
  readonly #token: bigint;
  #usedBy: string | undefined;
  static {
    brand(this, (value) => #usedBy in value);
  }

  private constructor(token: ConstructorToken, scope: ConditionScope, initial: number, index: number) {
    checkConstructorToken(token, 'a GraphCondition', 'graph.condition() or stream.condition()');
    this.scope = scope;
    this.initial = initial;
    this.name = `condition ${index}`;
    this.#token = 0xc0d0n << 48n | BigInt(++serial);
  }

  static #make(scope: ConditionScope, initial: unknown, index: number): GraphCondition {
    if (initial === undefined) initial = 0;
    if (typeof initial !== 'number' || !Number.isInteger(initial) || initial < 0 || initial > 0xffffffff)
      rangeError('initial', 'an unsigned 32-bit integer', initial);
    return new GraphCondition(CONSTRUCTOR_TOKEN, scope, initial, index);
  }

  get #lo(): number {
    return Number(this.#token & 0xffffffffn);
  }

  get #hi(): number {
    return Number(this.#token >> 32n);
  }

  /** The conditional node that uses it, in words, once one does. */
  get usedBy(): string | undefined {
    return this.#usedBy;
  }

  #use(node: string): void {
    this.#usedBy = node;
  }
  static {
    makeGraphCondition = (scope, initial, index) => GraphCondition.#make(scope, initial, index);
    useCondition = (condition, node) => condition.#use(node);
    conditionLo = (condition) => condition.#lo;
    conditionHi = (condition) => condition.#hi;
  }
}

/** Whether `scope` is `ancestor` or lies in one of its bodies. */
function within(scope: ConditionScope, ancestor: ConditionScope): boolean {
  for (let s: ConditionScope | undefined = scope; s; s = s.parent) if (s === ancestor) return true;
  return false;
}

/**
 * Checks `value` as the condition of a conditional node added at `scope`.
 * @throws TypeError for anything but a GraphCondition; GraphError (`condition`) for one of another
 * graph, of a closed graph, made in another part of the graph, or used by another node.
 */
export function checkConditionOfNode(value: unknown, scope: ConditionScope): GraphCondition {
  if (!isInstance<GraphCondition>(value, GraphCondition)) typeError('condition', 'a GraphCondition', value);
  const condition = value;
  checkConditionOpen(condition, scope, 'condition');
  if (condition.scope !== scope)
    throw new GraphError('condition', `${condition.name} was made in ${where(condition.scope)}: its conditional node goes there, not in ${where(scope, condition.scope)}`);
  if (condition.usedBy !== undefined)
    throw new GraphError('condition', `${condition.name} is already used by ${condition.usedBy}: one conditional node uses a condition (make another)`);
  return condition;
}

/**
 * Checks the conditions among a kernel's arguments, for a kernel node added at `scope`: each of
 * the same graph, made at `scope` or around it.
 * @throws GraphError (`condition`) naming the argument.
 */
export function checkConditionArgs(args: readonly unknown[], scope: ConditionScope): void {
  args.forEach((arg, i) => {
    if (!isInstance<GraphCondition>(arg, GraphCondition)) return;
    checkConditionOpen(arg, scope, `args[${i}]`);
    if (!within(scope, arg.scope))
      throw new GraphError('condition', `args[${i}] is ${arg.name}, made in ${where(arg.scope)}: kernels there or in the bodies below set it, not in ${where(scope, arg.scope)}`);
  });
}

function checkConditionOpen(condition: GraphCondition, scope: ConditionScope, name: string): void {
  if (condition.scope.root !== scope.root)
    throw new GraphError('condition', `${name} is ${condition.name} of another graph: a condition is used in the graph that made it`);
  if (scope.root.closed) throw new GraphError('condition', `${name} is ${condition.name} of a closed graph`);
}

/** The part of the graph `scope` is, in words; `other` another part, to tell them apart. */
function where(scope: ConditionScope, other?: ConditionScope): string {
  const depth = (s: ConditionScope) => {
    let n = 0;
    for (let p = s.parent; p; p = p.parent) n++;
    return n;
  };
  const d = depth(scope);
  if (d === 0) return 'the graph itself';
  const text = `a body ${d} level${d > 1 ? 's' : ''} down`;
  return other !== undefined && other !== scope && depth(other) === d ? `another ${text.slice(2)}` : text;
}


/**
 * The value of `condition` in one launch whose conditional nodes run as host steps, at its
 * initial value.
 */
export let conditionValueOf: (condition: GraphCondition) => ConditionValue;

/**
 * A condition's value in one launch of an executable on the host device: what a kernel's CPU
 * implementation receives for a `'condition'` parameter, to set as a GPU kernel sets the condition
 * with `cudaGraphSetConditional`.
 * @example
 * const relax = module.kernel('relax', ['ptr<f32>', 'condition'], {
 *   cpu: (config, [grid, more]) => more.set(step(grid) > 1e-6 ? 1 : 0),
 * });
 */
export class ConditionValue {
  /** The condition it is the value of. */
  readonly condition: GraphCondition;
  #value: number;

  private constructor(token: ConstructorToken, condition: GraphCondition) {
    checkConstructorToken(token, 'a ConditionValue', 'a launch on the host device (a CPU implementation receives one for each condition)');
    this.condition = condition;
    this.#value = condition.initial;
  }

  static #of(condition: GraphCondition): ConditionValue {
    return new ConditionValue(CONSTRUCTOR_TOKEN, condition);
  }

  /** The value now. */
  get value(): number {
    return this.#value;
  }

  /**
   * Sets the condition, as `cudaGraphSetConditional` does.
   * @throws RangeError for anything but an unsigned 32-bit integer (a boolean is 1 or 0).
   * @example
   * more.set(residual > 1e-6); // in a CPU implementation: loop again while the residual is large
   */
  set(value: number | boolean): void {
    if (typeof value === 'boolean') value = value ? 1 : 0;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff)
      rangeError('value', 'an unsigned 32-bit integer (or a boolean)', value);
    this.#value = value;
  }
  static {
    conditionValueOf = (condition) => ConditionValue.#of(condition);
  }
}
