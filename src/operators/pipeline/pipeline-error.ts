// The error of a pipeline's value: which operator failed, for which value, and why.
import { RxcudaError, describeFailure } from '../../core/base/errors.js';

/** What a cause says, whatever was thrown (a value String() refuses included). */
function messageOf(cause: unknown): string {
  try {
    return cause instanceof Error ? String(cause.message) : String(cause);
  } catch {
    return describeFailure(cause);
  }
}

/**
 * A pipeline failure, with where it happened and for which value; `cause` is what was thrown
 * there (a CudaError, a TypeError from a refused argument, a host step's own error), and `code`
 * is undefined.
 */
export class PipelineError extends RxcudaError {
  /** The class's name, `PipelineError`. */
  override readonly name = 'PipelineError';
  /** The operator that failed, e.g. `launch(saxpy)`. */
  readonly operator: string;
  /** The index of the value (0 for the first value of the source). */
  readonly index: number;

  constructor(operator: string, index: number, cause: unknown) {
    super(`${operator} failed for value #${index}: ${messageOf(cause)}`, undefined, { cause });
    this.operator = operator;
    this.index = index;
  }
}
