// memory/: device arrays and pinned host arrays as the engines know them (memory-view.ts; the
// classes are core/api/memory.ts), their allocations and frees behind the work that used them,
// pinned blocks kept for reuse (the pinned cache), lent arrays, copies between pageable and pinned
// host memory off the main thread, and the user's arrays kept alive and untransferable while
// native code uses them. It knows streams and devices only as the interfaces of owner.ts.
// Imports base/, native/ and host/ (the host device's backend table).
export { LentArray } from './lent-array.js';
export { MAIN_THREAD_COPY_BYTES, copyThreads, type CopyRoad } from './host-copy.js';
