// Pipeline operators refuse what they cannot use by name: at once where the argument is given
// when the operator is made, or as a PipelineError of that operator and value (whose cause names
// it) where it comes from a value; messages show an array's type and length, never its elements.
import { afterAll, describe, expect, it } from 'vitest';
import { lastValueFrom, map, range, toArray, type Observable } from 'rxjs';
import { Device, LanePool, MAX_SPIN_US, PipelineError, download, framesFrom, lanesFrom, onStreams, upload } from '../../src/index.js';

const device = Device.host();
const pool = new LanePool(device, { lanes: 1, inFlight: 2 });
afterAll(() => pool.close());

const values = () => range(0, 1).pipe(map(() => new Float32Array(8)), onStreams(pool), upload((x) => x));
type Values = ReturnType<typeof values>;

/** The error the pipeline `build` makes of one uploaded Float32Array of 8 ends with. */
async function failure(build: (source: Values) => Observable<unknown>): Promise<PipelineError> {
  const error: unknown = await lastValueFrom(build(values())).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PipelineError);
  return error as PipelineError;
}

describe('pipeline arguments', () => {
  it('refuses an upload of an array with no element type by name, showing its type and length only', async () => {
    const error = await failure((source) => source.pipe(upload(() => new Uint8ClampedArray(1 << 20) as never, 'clamped')));
    expect(error.operator).toBe('upload(clamped)');
    expect(error.cause).toEqual(new TypeError('Expected `select(value)` to be a HostArray or a TypedArray other than a Uint8ClampedArray, got a Uint8ClampedArray of 1048576'));
  });

  it('refuses a download of what is not memory, and an into array of another type or too short', async () => {
    expect((await failure((source) => source.pipe(download(() => undefined as never)))).cause).toEqual(
      new TypeError('Expected `select(work)` to be a DeviceArray or HostArray, got undefined'),
    );
    const into = (array: () => Float32Array) => failure((source) => source.pipe(download((w) => w.buffers.input, 'y', { into: array })));
    expect((await into(() => new Int32Array(8) as never)).cause).toEqual(
      new TypeError('Expected `into(work)` to be a Float32Array of at least 8 elements, got an Int32Array of 8'),
    );
    expect((await into(() => new Float32Array(4))).cause).toEqual(
      new TypeError('Expected `into(work)` to be a Float32Array of at least 8 elements, got a Float32Array of 4'),
    );
  });

  it('refuses at once what is given when the operator is made', () => {
    expect(() => download(() => undefined as never, 'y', { into: new Float32Array(4) as never })).toThrow(
      new TypeError('Expected `into` to be a function from a value to the array its result goes into, got a Float32Array of 4'),
    );
    expect(() => download(42 as never)).toThrow(new TypeError('Expected `select` to be a function from a value to the memory to download, got 42'));
    expect(() => download(() => undefined as never, 'y', null as never)).toThrow(new TypeError('Expected `options` to be an options object, got null'));
    expect(() => download(() => undefined as never, 'y', { lend: 'yes' as never })).toThrow(new TypeError('Expected `lend` to be \'release\' or \'next\', got "yes"'));
    expect(() => upload('x' as never)).toThrow(new TypeError('Expected `select` to be a function from a value to the data to upload, got "x"'));
    expect(() => lanesFrom(42 as never, device)).toThrow(new TypeError('Expected `iterable` to be an iterable or an async iterable, got 42'));
    expect(() => lanesFrom(null as never, device)).toThrow(new TypeError('Expected `iterable` to be an iterable or an async iterable, got null'));
    expect(() => framesFrom(device, undefined as never, () => {})).toThrow(new TypeError('Expected `options` to be an options object with `dtype` and `length`, got undefined'));
    expect(() => new LanePool(device, { timeline: {} as never })).toThrow(new TypeError('Expected `timeline` to be a Timeline, got {}'));
    expect(() => new LanePool(device, { spin: MAX_SPIN_US + 1 })).toThrow(RangeError);
    expect(() => onStreams(device, null as never)).toThrow(new TypeError('Expected `options` to be an options object, got null'));
  });

  it('bounds a spinning wait to MAX_SPIN_US, refusing more before anything is enqueued', async () => {
    const stream = device.createStream();
    try {
      const before = stream.engine.given;
      expect(() => stream.synchronized({ spin: MAX_SPIN_US + 1 })).toThrow(
        new RangeError(`Expected \`spin\` to be an integer number of microseconds in 0..${MAX_SPIN_US}, got ${MAX_SPIN_US + 1}`),
      );
      expect(stream.engine.given).toBe(before);
      await stream.synchronized({ spin: MAX_SPIN_US });
    } finally {
      stream.close();
    }
  });

  it('iterates a string as lanesFrom\'s source, as any iterable', async () => {
    const values = await lastValueFrom(lanesFrom('abc', device, { lanes: 1 }).pipe(map((w) => w.value), toArray()));
    expect(values).toEqual(['a', 'b', 'c']);
  });
});
