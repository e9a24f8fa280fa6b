// Stream order under random programs: every host step sees exactly the device work enqueued
// before it, whatever mix of fills, copies, sync and async steps and notifications comes first.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeBackends } from '../support/backends.js';

type Op =
  | { kind: 'fill'; value: number }
  | { kind: 'copy' }
  | { kind: 'step'; async: boolean }
  | { kind: 'onDone' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('fill' as const), value: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }),
  fc.constant({ kind: 'copy' as const }),
  fc.record({ kind: fc.constant('step' as const), async: fc.boolean() }),
  fc.constant({ kind: 'onDone' as const }),
);

describeBackends('stream order', (getDevice) => {
  it('holds for random programs of device work and host steps', async () => {
    const device = getDevice();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (program) => {
        const s = device.createStream({ nonBlocking: true });
        const array = s.alloc('u32', 64);
        const host = device.allocHost('u32', 64);
        s.fill(array, 0);
        s.copy(host, array);
        let deviceValue = 0; // what the device array holds at this point of the program
        let hostValue = 0; // what the host copy holds at this point
        const seen: [number, number][] = [];
        const expected: [number, number][] = [];
        const notified: number[] = [];
        let notifications = 0;
        for (const step of program) {
          if (step.kind === 'fill') {
            s.fill(array, step.value);
            deviceValue = step.value;
          } else if (step.kind === 'copy') {
            s.copy(host, array);
            hostValue = deviceValue;
          } else if (step.kind === 'step') {
            expected.push([hostValue, hostValue]);
            s.hostLaunch(async () => {
              const first = host.data[0]!;
              if (step.async) await new Promise((r) => setTimeout(r, 1));
              seen.push([first, host.data[63]!]);
            });
          } else {
            // A notification does not hold the stream, so later copies may already have landed
            // when it runs: what it guarantees is its place among the other notifications.
            const n = notifications++;
            s.onDone(() => void notified.push(n));
          }
        }
        await s.synchronized();
        s.close();
        expect(seen).toEqual(expected);
        expect(notified).toEqual(Array.from({ length: notifications }, (_, i) => i));
      }),
      { numRuns: 40 },
    );
  });
});
