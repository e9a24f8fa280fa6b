// The launch block's layout and notify()'s flags are declared once, by the addon
// (native/src/runtime/launch-block.hpp, device-thread.hpp); loading the addon checks TypeScript's
// constants against them, so a mismatched build fails at load instead of misreading bytes or flags.
import { describe, expect, it } from 'vitest';
import { LaunchConfig, configHeader } from '../../src/core/kernels/launch-config.js';
import { HEADER_BYTES, STREAM_WORD } from '../../src/core/kernels/packer.js';
import { addon } from '../../src/core/native/addon.js';
import { LAUNCH_BLOCK, checkAgainstAddon, checkLaunchBlockLayout } from '../../src/core/native/launch-block.js';
import { NOTIFY_FLAGS } from '../../src/core/native/types.js';

describe('launchBlockLayout', () => {
  it('is the layout TypeScript writes blocks with, frozen', () => {
    expect({ ...addon.launchBlockLayout }).toEqual({ ...LAUNCH_BLOCK });
    expect(Object.isFrozen(addon.launchBlockLayout)).toBe(true);
    expect([HEADER_BYTES, STREAM_WORD * 4]).toEqual([LAUNCH_BLOCK.headerBytes, LAUNCH_BLOCK.streamOffset]);
  });

  it("writes a configuration's words where the addon's layout puts each", () => {
    const config = new LaunchConfig({ grid: [2, 3, 4], block: [8, 4, 1], sharedMem: 96, cooperative: true });
    const words = [...configHeader(config)];
    const layout = addon.launchBlockLayout;
    expect(words).toHaveLength(layout.configWords);
    expect(words.slice(layout.gridWord, layout.gridWord + 3)).toEqual([2, 3, 4]);
    expect(words.slice(layout.blockWord, layout.blockWord + 3)).toEqual([8, 4, 1]);
    expect(words[layout.sharedMemWord]).toBe(96);
    expect(words[layout.flagsWord]).toBe(layout.flagCooperative);
    expect(words.slice(layout.clusterWord, layout.clusterWord + 3)).toEqual([0, 0, 0]);
    const clustered = [...configHeader(new LaunchConfig({ grid: [4, 2, 1], block: 32, cluster: [2, 1, 1] }))];
    expect(clustered.slice(layout.clusterWord, layout.clusterWord + 3)).toEqual([2, 1, 1]);
    expect(clustered[layout.flagsWord]).toBe(layout.flagCluster);
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

describe('notifyFlags', () => {
  it("is the addon's declaration of the flags TypeScript passes to notify(), frozen", () => {
    expect({ ...addon.notifyFlags }).toEqual({ ...NOTIFY_FLAGS });
    expect(Object.isFrozen(addon.notifyFlags)).toBe(true);
  });

  it('fails the check loading runs for flags that differ, naming the field', () => {
    expect(() => checkAgainstAddon('notify() flag table', 'notifyFlags', { ...NOTIFY_FLAGS, offStream: 8 }, NOTIFY_FLAGS)).toThrow(
      new Error('The notify() flag table differs between rxcuda and its addon: `offStream` is 4 in TypeScript and 8 in the addon'),
    );
    expect(() => checkAgainstAddon('notify() flag table', 'notifyFlags', undefined, NOTIFY_FLAGS)).toThrow(/declares no notify\(\) flag table \(`notifyFlags`\)/);
  });
});
