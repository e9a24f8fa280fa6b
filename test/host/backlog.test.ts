import { describe, expect, it } from 'vitest';
import { Backlog, BACKLOG_LIMIT, HOST_STEP_UNITS, launchUnits } from '../../src/core/backlog.js';

describe('launchUnits', () => {
  it('weighs a launch by its packed arguments', () => {
    expect([launchUnits(0), launchUnits(8), launchUnits(16), launchUnits(17), launchUnits(96)]).toEqual([1, 2, 3, 4, 13]);
  });
});

describe('Backlog', () => {
  it('lets at most 32 held steps wait behind an unfinished one', () => {
    const backlog = new Backlog();
    backlog.admit(HOST_STEP_UNITS);
    backlog.stepEnqueued();
    let steps = 0;
    try {
      for (; steps < 100; steps++) {
        backlog.admit(HOST_STEP_UNITS);
        backlog.stepEnqueued();
      }
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
    }
    expect(steps).toBe(32);
  });

  it('admits any amount of work while no step is unfinished', () => {
    const backlog = new Backlog();
    for (let i = 0; i < 10 * BACKLOG_LIMIT; i++) backlog.admit(1);
  });

  it('refuses work past the limit behind the oldest unfinished step, counting nothing refused', () => {
    const backlog = new Backlog();
    backlog.admit(5);
    backlog.stepEnqueued();
    backlog.admit(BACKLOG_LIMIT - 1);
    backlog.stepEnqueued();
    backlog.admit(1);
    expect(() => backlog.admit(1)).toThrow(RangeError);
    expect(() => backlog.admit(1)).toThrow(`got ${BACKLOG_LIMIT + 1}`);
    backlog.stepReleased(); // the second step is now the oldest: one command behind it
    for (let i = 1; i < BACKLOG_LIMIT; i++) backlog.admit(1);
    expect(() => backlog.admit(1)).toThrow(RangeError);
    backlog.stepReleased();
    backlog.admit(BACKLOG_LIMIT * 2);
  });
});
