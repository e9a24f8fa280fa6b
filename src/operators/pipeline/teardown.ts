// Where a failure of user code called at an operator's teardown goes (an iterator's `return()`, a
// source's unsubscribe): never up the stack of whatever ended the pipeline, never out as an
// uncaught exception or an unhandled rejection that ends the process.
import { config, type Subscriber, type Unsubscribable } from 'rxjs';
import { describeFailure, typeError } from '../../core/base/errors.js';
import { isThenable } from '../../core/base/thenable.js';

/** The code of the process warning for a failure at a pipeline's teardown that nobody heard. */
export const TEARDOWN_FAILED_WARNING = 'RXCUDA_TEARDOWN_FAILED';

/**
 * Hands `error`, what `what` threw or rejected with at teardown, to `subscriber` while it still
 * listens; else reports it as a process warning (code {@link TEARDOWN_FAILED_WARNING}) and to
 * RxJS's `config.onUnhandledError` when one is set. Never throws.
 */
export function reportTeardownFailure(subscriber: Subscriber<never>, what: string, error: unknown): void {
  if (!subscriber.closed) return subscriber.error(error);
  try {
    process.emitWarning(`${what} failed after its pipeline ended: ${describeFailure(error)}`, { type: 'RxcudaWarning', code: TEARDOWN_FAILED_WARNING });
  } catch {
    // A 'warning' machinery that throws (a monkey-patched emitWarning): nothing more can be said.
  }
  let onUnhandled: unknown;
  try {
    onUnhandled = config.onUnhandledError;
    if (typeof onUnhandled === 'function') onUnhandled(error);
  } catch (thrown) {
    try {
      process.emitWarning(`config.onUnhandledError threw: ${describeFailure(thrown)}`, { type: 'RxcudaWarning', code: TEARDOWN_FAILED_WARNING });
    } catch {}
  }
}

/**
 * Ends an iteration its consumer leaves early, as `for … of` and `for await … of` do: calls the
 * iterator's `return()`, if it has one, and sends what that throws or rejects with to
 * {@link reportTeardownFailure}.
 */
export function closeIterator(iterator: Iterator<unknown> | AsyncIterator<unknown>, subscriber: Subscriber<never>, what: string): void {
  const failed = (error: unknown) => reportTeardownFailure(subscriber, what, error);
  try {
    const close: unknown = iterator.return;
    if (close === undefined || close === null) return;
    if (typeof close !== 'function') typeError('iterator.return', 'a function', close);
    const result: unknown = (close as (this: unknown) => unknown).call(iterator);
    if (isThenable(result)) Promise.resolve(result).then(undefined, failed);
  } catch (error) {
    failed(error);
  }
}

/**
 * Unsubscribes `subscription` (a source's, or an operator's of the user's), sending what its
 * teardown throws to {@link reportTeardownFailure}, so that what comes after it in a teardown
 * still runs.
 */
export function unsubscribeFenced(subscription: Unsubscribable | undefined, subscriber: Subscriber<never>, what: string): void {
  try {
    subscription?.unsubscribe();
  } catch (error) {
    reportTeardownFailure(subscriber, what, error);
  }
}
