// Control flow on the device: the checks of conditional nodes (if, if/else, while, switch) and of
// the setting of a condition from memory, and the value the built-in setter computes. The
// condition itself is device/condition.ts (kernels take it as an argument).
import { GraphError, elementsOf, isArray, rangeError, received, typeError } from '../base/errors.js';
import type { DType } from '../base/dtype.js';
import { checkMemoryOf } from '../memory/checks.js';
import type { Allocation } from '../memory/allocation.js';
import type { MemoryView } from '../memory/memory-view.js';
import type { DeviceEngine } from '../device/device-engine.js';

/** The kinds of conditional node: `if` holds one body or two (if/else), `switch` one per case. */
export type ConditionalType = 'if' | 'while' | 'switch';

/**
 * How a condition is set from a value in memory ({@link Stream.setCondition}): the value itself
 * (`'value'`: for a `switch`, the case to run; for an `if` or `while`, true when it is not zero),
 * or a comparison with a number: `'!= 0'`, `'> 0.5'`, `'<= -3'`, … (`==`, `!=`, `<`, `<=`, `>`,
 * `>=`), true (1) or false (0).
 */
export type ConditionTest = 'value' | `${'==' | '!=' | '<' | '<=' | '>' | '>='} ${number}`;

/** The element types a condition can be set from. */
export const CONDITION_DTYPES: readonly DType[] = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'];

/** A comparison's operator, in the order the built-in kernel numbers them (0 is the value itself). */
const OPERATORS = ['value', '==', '!=', '<', '<=', '>', '>='] as const;

/** A checked {@link ConditionTest}: its operator's number and the number compared with. */
export interface ParsedTest {
  readonly op: number;
  readonly operand: number;
  readonly text: string;
}

/**
 * The test as the built-in setter takes it.
 * @throws TypeError for anything but 'value' or an operator, a space and a finite number.
 */
export function parseTest(test: unknown): ParsedTest {
  if (test === 'value') return { op: 0, operand: 0, text: 'value' };
  const match = typeof test === 'string' ? /^(==|!=|<=|>=|<|>)\s*(\S+)$/.exec(test.trim()) : null;
  const operand = match ? Number(match[2]) : NaN;
  if (!match || !Number.isFinite(operand))
    typeError('test', "'value', or an operator (==, !=, <, <=, >, >=) and a finite number, e.g. '!= 0'", test);
  return { op: OPERATORS.indexOf(match[1] as (typeof OPERATORS)[number]), operand, text: `${match[1]} ${operand}` };
}

/** The value a condition takes from `value` by `test`, as the built-in setter computes it on a GPU. */
export function conditionValue(value: number | bigint, test: ParsedTest): number {
  if (test.op === 0) {
    if (typeof value === 'bigint') return value >= 0n && value < 2n ** 32n ? Number(value) : value === 0n ? 0 : 0xffffffff;
    return Number.isInteger(value) && value >= 0 && value < 2 ** 32 ? value : value === 0 ? 0 : Number.isNaN(value) || value < 0 || value >= 2 ** 32 ? 0xffffffff : Math.trunc(value);
  }
  const v = Number(value), k = test.operand;
  const holds = [false, v === k, v !== k, v < k, v <= k, v > k, v >= k][test.op]!;
  return holds ? 1 : 0;
}

/** Checks a loop's bound: a whole number of iterations from 1 to 2^31 - 1. */
export function checkMaxIterations(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 2 ** 31 - 1)
    rangeError('maxIterations', 'a whole number of iterations from 1 to 2^31 - 1', value);
  return value;
}

/** Checks memory a condition is set from: open, of this device, of an element type the setter reads. */
export function checkConditionMemory(memory: unknown, device: DeviceEngine): MemoryView {
  checkMemoryOf('memory', memory as MemoryView, device);
  const m = memory as MemoryView;
  if (!CONDITION_DTYPES.includes(m.dtype)) typeError('memory', `memory of ${CONDITION_DTYPES.join(', ')}`, received(`memory of ${m.dtype}`));
  if (m.length < 1) rangeError('memory', 'memory of one element at least (its first is read)', received('empty memory'));
  return m;
}

/** The built-in bound of a while loop: its name, its bound, and where the device reports an overrun. */
export interface LoopBound {
  readonly name: string;
  readonly maxIterations: number;
}

/** The allocations of `memory` not yet in `into`. */
export function addAllocations(into: Allocation[], memory: readonly Allocation[]): void {
  for (const allocation of memory) if (!into.includes(allocation)) into.push(allocation);
}

export const BODY_REFUSALS = { hostFunction: 'A native host function', record: 'An event record', wait: 'An event wait' } as const;

/** The refusal of a body function that returned a Promise: a body is recorded while its function runs. */
export function bodyReturnedPromise(): GraphError {
  return new GraphError('body', "A body's function returned a Promise: a body is recorded while its function runs, so it must not be async");
}

/** The switch's case functions, checked: at least one. */
export function checkCases<F>(cases: readonly F[]): readonly F[] {
  if (!isArray(cases)) typeError('cases', 'an array of body functions', cases);
  const list = elementsOf(cases);
  if (list.length === 0) rangeError('cases', 'one case at least', received('no cases'));
  return list as F[];
}

/** Options for {@link Graph.condition} and {@link Stream.condition}. */
export interface ConditionOptions {
  /**
   * The value the condition takes at the start of each launch, an unsigned 32-bit integer.
   * @default 0
   */
  readonly initial?: number;
}

/** Options for a `while` loop ({@link Graph.addWhile}, {@link Stream.whileLoop}). */
export interface LoopOptions {
  /**
   * The most iterations the loop runs, enforced on the device: a loop whose condition still asks
   * for more after them is stopped, the graph goes on, and a {@link LoopLimitError} is reported
   * after the launch. A whole number from 1 to 2^31 - 1.
   * @default no bound
   */
  readonly maxIterations?: number;
  /**
   * What messages call the loop.
   * @default 'while loop <n>', the nth of its graph from 0
   */
  readonly name?: string;
}
