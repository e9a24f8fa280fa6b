// The native test helpers addon (test/native/helpers.cpp), built beside rxcuda by cmake-js.
import { createRequire } from 'node:module';

export const helpers = createRequire(import.meta.url)('../../build/Release/rxcuda_test.node') as {
  countCalls: bigint;
  /** A host function that holds its stream's thread until the u32 at its user data is non-zero. */
  waitForWord: bigint;
  beginCapture(stream: bigint): string;
  endCapture(stream: bigint): string;
};
