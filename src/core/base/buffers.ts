// Whether a buffer still has its memory: what messages and the checks of user arrays ask.

/** Whether `buffer` was detached (transferred away, or emptied): its memory is not its own any more. */
export function isDetached(buffer: ArrayBufferLike): boolean {
  if (buffer.byteLength !== 0) return false;
  const detached = (buffer as { readonly detached?: unknown }).detached; // Node 22 and later
  if (typeof detached === 'boolean') return detached;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}
