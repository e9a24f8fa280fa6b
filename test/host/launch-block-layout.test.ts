// The launch block's layout is declared once, by the addon (native/src/runtime/launch-block.hpp);
// loading the addon checks TypeScript's constants against it, so a mismatched build fails at load
// instead of launching with arguments read from the wrong bytes.
import { describe, expect, it } from 'vitest';
import { HEADER_BYTES, STREAM_WORD } from '../../src/core/kernels/packer.js';
import { addon } from '../../src/core/native/addon.js';
import { LAUNCH_BLOCK, checkLaunchBlockLayout } from '../../src/core/native/launch-block.js';

describe('launchBlockLayout', () => {
  it('is the layout TypeScript writes blocks with, frozen', () => {
    expect({ ...addon.launchBlockLayout }).toEqual({ ...LAUNCH_BLOCK });
    expect(Object.isFrozen(addon.launchBlockLayout)).toBe(true);
    expect([HEADER_BYTES, STREAM_WORD * 4]).toEqual([LAUNCH_BLOCK.headerBytes, LAUNCH_BLOCK.streamOffset]);
  });

  it('passes the check that loading runs', () => {
    expect(() => checkLaunchBlockLayout(addon.launchBlockLayout)).not.toThrow();
  });

  it('fails the check for a layout that differs, naming the field', () => {
    expect(() => checkLaunchBlockLayout({ ...LAUNCH_BLOCK, headerBytes: 80 })).toThrow(
      new Error('The launch block layout differs between rxcuda and its addon: `headerBytes` is 64 in TypeScript and 80 in the addon'),
    );
    const { flagCluster: _, ...withoutCluster } = LAUNCH_BLOCK;
    expect(() => checkLaunchBlockLayout(withoutCluster)).toThrow(/`flagCluster` is 2 in TypeScript and undefined in the addon/);
    expect(() => checkLaunchBlockLayout(addon.launchBlockLayout, { ...LAUNCH_BLOCK, streamOffset: 56 })).toThrow(/`streamOffset` is 56 in TypeScript and 48/);
  });

  it('fails the check for an addon that declares no layout', () => {
    expect(() => checkLaunchBlockLayout(undefined)).toThrow(/declares no launch block layout/);
  });
});
