// Telling a Promise (or any thenable) from a plain value, for code that awaits only when it must.

/** Whether `value` is a thenable (an object or function with a `then` method). */
export function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<V>).then === 'function';
}

/**
 * What `check()` throws, as a rejected Promise, or undefined when it passes: how a method that
 * returns a Promise reports a closed or broken object (as Node's promise APIs do), so that
 * `.catch()` sees it. Argument errors stay synchronous, before it.
 */
export function refusal(check: () => void): Promise<never> | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return Promise.reject(error);
  }
}
