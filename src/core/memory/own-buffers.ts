// The ArrayBuffers the addon made over rxcuda's own memory (pinned arrays, the host device's
// views of device memory). Node never moves such a buffer (a transfer copies it), so rxcuda never
// marks one untransferable: from Node 24 on, a buffer over an addon's memory that carries
// `markAsUntransferable`'s mark makes Node abort when the addon empties it, or at exit.
const own = new WeakSet<ArrayBufferLike>();

/** Notes `buffer` as one the addon made over rxcuda's memory; returns it. */
export function ownBuffer<B extends ArrayBufferLike>(buffer: B): B {
  own.add(buffer);
  return buffer;
}

/** Whether the addon made `buffer` over rxcuda's memory. */
export function isOwnBuffer(buffer: ArrayBufferLike): boolean {
  return own.has(buffer);
}
