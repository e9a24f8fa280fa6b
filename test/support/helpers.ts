// The native test helpers addon (test/native/helpers.cpp), built beside rxcuda by cmake-js when
// the tests first need it (`npm test` runs scripts/build-extras.mjs).
import { createRequire } from 'node:module';

/** The helpers addon, or an error that says how to build it (a plain install leaves it out). */
function load(): unknown {
  try {
    return createRequire(import.meta.url)('../../build/Release/rxcuda_test.node');
  } catch (error) {
    throw new Error(`The native test helpers (build/Release/rxcuda_test.node) could not be loaded: \`npm test\` builds them first, or run \`node scripts/build-extras.mjs test\`.\n${(error as Error).message}`);
  }
}

export const helpers = load() as {
  countCalls: bigint;
  /** A host function that holds its stream's thread until the u32 at its user data is non-zero. */
  waitForWord: bigint;
  beginCapture(stream: bigint): string;
  endCapture(stream: bigint): string;
  /** Bytes malloc has handed out and not taken back: the host device's memory, among the rest. */
  mallocInUse(): number;
  /** The device's current memory pool's bytes in use and reserved, or what failed. */
  devicePool(ordinal: number): { used: number; reserved: number } | string;
  /** cuCtxSynchronize on the current context (the pools give reserved memory back then); its CUresult name. */
  synchronizeContext(): string;
  /** Allocates `bytes` and drops the pointer: a leak for the leak checker to report. */
  leakOnPurpose(bytes: number): void;
};
