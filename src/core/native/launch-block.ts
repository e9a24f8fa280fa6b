// The launch block's binary layout as TypeScript writes it. native/src/runtime/launch-block.hpp
// declares it; the addon hands that declaration over as `launchBlockLayout`, and loading the addon
// checks these constants against it (a stale or mismatched build fails there, not in a launch).

/** The layout of a kernel's launch block: the header (configuration, stream handle), then the packed arguments. */
export interface LaunchBlockLayout {
  /** Bytes of header before the arguments. */
  readonly headerBytes: number;
  /** The byte offset of the stream's 64-bit handle in the header. */
  readonly streamOffset: number;
  /** The 32-bit words of launch configuration the header starts with. */
  readonly configWords: number;
  /** The word where the grid's x, y and z start. */
  readonly gridWord: number;
  /** The word where the block's x, y and z start. */
  readonly blockWord: number;
  /** The word of the dynamic shared memory's bytes. */
  readonly sharedMemWord: number;
  /** The word of the launch's flags. */
  readonly flagsWord: number;
  /** The word where the cluster's x, y and z start (zeros without a cluster). */
  readonly clusterWord: number;
  /** The flags word's bit for a cooperative launch. */
  readonly flagCooperative: number;
  /** The flags word's bit for a launch with a cluster shape. */
  readonly flagCluster: number;
}

/** The layout TypeScript writes blocks with. */
export const LAUNCH_BLOCK: LaunchBlockLayout = Object.freeze({
  headerBytes: 64,
  streamOffset: 48,
  configWords: 11,
  gridWord: 0,
  blockWord: 3,
  sharedMemWord: 6,
  flagsWord: 7,
  clusterWord: 8,
  flagCooperative: 1,
  flagCluster: 2,
});

/**
 * Throws an `Error` naming the first field where `native` (the addon's `launchBlockLayout`)
 * differs from `expected`, or saying that the addon declares no layout.
 */
export function checkLaunchBlockLayout(native: unknown, expected: LaunchBlockLayout = LAUNCH_BLOCK): void {
  checkAgainstAddon('launch block layout', 'launchBlockLayout', native, expected);
}

/**
 * Throws an `Error` naming the first field where `native`, the addon's export `exported`, differs
 * from the constants TypeScript holds (`expected`), or saying that the addon has no such export.
 */
export function checkAgainstAddon(what: string, exported: string, native: unknown, expected: object): void {
  if (typeof native !== 'object' || native === null) throw new Error(`The addon declares no ${what} (\`${exported}\`): it is older than this rxcuda`);
  for (const [field, value] of Object.entries(expected)) {
    const theirs = (native as Record<string, unknown>)[field];
    if (theirs !== value) {
      throw new Error(`The ${what} differs between rxcuda and its addon: \`${field}\` is ${String(value)} in TypeScript and ${String(theirs)} in the addon`);
    }
  }
}
