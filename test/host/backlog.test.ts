import { describe, expect, it } from 'vitest';
import { Backlog, BACKLOG_LIMIT } from '../../src/core/backlog.js';

describe('Backlog', () => {
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
