// memory/: device arrays and pinned host arrays, their allocations and frees behind the work that
// used them, pinned blocks kept for reuse, lent arrays, and host copies off the main thread. It
// knows streams and devices only as the interfaces of owner.ts. Imports base/, native/ and host/.
export { Memory, DeviceArray, HostArray } from './memory.js';
export { LentArray } from './lent-array.js';
export { MAIN_THREAD_COPY_BYTES, copyThreads, type CopyRoad } from './host-copy.js';
