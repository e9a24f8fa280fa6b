// Telling a Promise (or any thenable) from a plain value, for code that awaits only when it must.

/** Whether `value` is a thenable (an object or function with a `then` method). */
export function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<V>).then === 'function';
}
