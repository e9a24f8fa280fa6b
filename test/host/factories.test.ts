// Objects only rxcuda makes have no public constructor: it is private or protected in the
// declarations, and calling it anyway (from JavaScript) is a TypeError that names the factory to
// use. The classes are read from the exported declarations (test/support/entry-points.ts): a new
// class is either one users make (below) or one of these.
import { describe, expect, it } from 'vitest';
import * as rxcuda from '../../src/index.js';
import * as jetstream from '../../src/operators/jetstream/index.js';
import { exportedClasses } from '../support/entry-points.js';

/** The classes users make themselves: errors, launch configurations, lane pools, timelines, counters. */
const MADE_BY_USERS = [
  'ArgumentRangeError', 'ArgumentTypeError', 'CudaError', 'DeadlockError', 'GraphError', 'HostStepTimeoutError', 'LaunchConfig', 'LaunchHookError', 'LanePool', 'NoCurrentLaunchError', 'NvrtcError',
  'PipelineError', 'RxcudaError', 'Timeline', 'JetStreamCounts', 'JetStreamError', 'FileWriteError', 'LibraryError', 'LoopLimitError',
].sort();

const modules: Record<string, Record<string, unknown>> = { rxcuda, 'rxcuda/jetstream': jetstream };

describe('exported classes', () => {
  const classes = exportedClasses();

  it('have a public constructor only where users make them', () => {
    expect(classes.length).toBeGreaterThan(25);
    expect(classes.filter((c) => c.publicConstructor).map((c) => c.name).sort()).toEqual(MADE_BY_USERS);
  });

  it('refuse a call of the constructor of what rxcuda makes with a TypeError that names the factory', () => {
    const wrong: string[] = [];
    for (const { entry, name, publicConstructor } of classes) {
      if (publicConstructor) continue;
      const Class = modules[entry]![name] as new () => unknown;
      let error: unknown;
      try {
        new Class();
      } catch (e) {
        error = e;
      }
      if (!(error instanceof TypeError && /^Use \S.* to make .+: its constructor is rxcuda's own$/.test(error.message)))
        wrong.push(`${name}: ${error instanceof Error ? error.message : 'made'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('name the factory of each', () => {
    expect(() => new (rxcuda.DeviceArray as unknown as new () => unknown)()).toThrow(new TypeError("Use stream.alloc() to make a DeviceArray: its constructor is rxcuda's own"));
    expect(() => new (rxcuda.Work as unknown as new () => unknown)()).toThrow(new TypeError("Use onStreams(), lanesFrom() or framesFrom() to make a Work: its constructor is rxcuda's own"));
  });
});

describe('Lane', () => {
  it('cannot be closed behind its pool: a pool whose lane was closed reports itself closed', () => {
    const pool = new rxcuda.LanePool(rxcuda.Device.host(), { lanes: 2 });
    expect(pool.closed).toBe(false);
    (pool.lanes[0] as unknown as { engine: { close(): void } }).engine.close(); // not in the declarations: JavaScript can still call it
    expect(pool.closed).toBe(true);
    expect(() => rxcuda.onStreams(pool)).toThrow(new TypeError('Expected `target` to be an open LanePool, got a closed LanePool'));
    pool.close();
    expect(pool.lanes.every((lane) => lane.stream.closed)).toBe(true);
  });

  it("leaves the pool closed too when a lane's stream is closed alone", () => {
    const pool = new rxcuda.LanePool(rxcuda.Device.host(), { lanes: 2 });
    pool.lanes[1]!.stream.close();
    expect(pool.closed).toBe(true);
    pool.close();
  });
});
