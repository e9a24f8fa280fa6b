// Argument errors are rxcuda's own and Node's kind: TypeErrors and RangeErrors (their class, their
// name) of classes of rxcuda's, with a Node-style `code`; isRxcudaError tells them, and rxcuda's
// failures, from the errors of other code.
import { describe, expect, it } from 'vitest';
import {
  ArgumentRangeError, ArgumentTypeError, CudaError, Device, DeviceArray, NvrtcError, RxcudaError, download, isRxcudaError,
} from '../../src/index.js';

const device = Device.host();

/** What `call` threw. */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return expect.fail('it did not throw');
}

/** The class, kinship, name, code and message of an error. */
function seen(error: unknown) {
  const e = error as Error & { code?: unknown };
  return {
    class: e.constructor.name,
    typeError: e instanceof TypeError,
    rangeError: e instanceof RangeError,
    rxcuda: isRxcudaError(e),
    name: e.name,
    code: e.code,
    message: e.message,
    string: String(e),
  };
}

describe('ArgumentTypeError', () => {
  it('is the TypeError of a value of the wrong type, code ERR_INVALID_ARG_TYPE', () => {
    using stream = device.createStream();
    expect(seen(thrown(() => stream.alloc('f33' as 'f32', 4)))).toEqual({
      class: 'ArgumentTypeError',
      typeError: true,
      rangeError: false,
      rxcuda: true,
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_TYPE',
      message: expect.stringMatching(/^Expected `dtype` to be .*, got "f33"$/),
      string: expect.stringMatching(/^TypeError: Expected `dtype`/),
    });
  });

  it('equals, compared deeply, the TypeError of its message: its code is not enumerable', () => {
    const error = new ArgumentTypeError('Expected `x` to be a number, got "a"', 'ERR_INVALID_ARG_TYPE');
    expect(Object.keys(error)).toEqual([]);
    expect(error).toEqual(new TypeError('Expected `x` to be a number, got "a"'));
    expect(error.code).toBe('ERR_INVALID_ARG_TYPE');
  });

  it('is the TypeError of an option no option has, code ERR_UNKNOWN_OPTION', () => {
    const error = thrown(() => device.createStream({ nonblocking: true } as never));
    expect(error).toBeInstanceOf(ArgumentTypeError);
    expect(seen(error)).toMatchObject({ name: 'TypeError', code: 'ERR_UNKNOWN_OPTION', message: 'Unknown option `nonblocking`; did you mean `nonBlocking`?' });
  });

  it('is the TypeError of a class made without its factory, code ERR_ILLEGAL_CONSTRUCTOR', () => {
    const error = thrown(() => new (DeviceArray as unknown as new () => unknown)());
    expect(error).toBeInstanceOf(ArgumentTypeError);
    expect(seen(error)).toMatchObject({ name: 'TypeError', code: 'ERR_ILLEGAL_CONSTRUCTOR', message: expect.stringMatching(/^Use .+ to make a DeviceArray: its constructor is rxcuda's own$/) });
  });

  it('is the TypeError of two options that exclude each other, code ERR_INVALID_ARG_VALUE', () => {
    const error = thrown(() => download(() => new Uint8Array(1) as never, 'x', { lend: 'next', into: () => new Uint8Array(1) } as never));
    expect(error).toBeInstanceOf(ArgumentTypeError);
    expect(seen(error)).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: 'Expected either `lend` or `into`, got both' });
  });
});

describe('ArgumentRangeError', () => {
  it('is the RangeError of a value out of its range, code ERR_OUT_OF_RANGE', () => {
    expect(seen(thrown(() => Device.hosts(0)))).toEqual({
      class: 'ArgumentRangeError',
      typeError: false,
      rangeError: true,
      rxcuda: true,
      name: 'RangeError',
      code: 'ERR_OUT_OF_RANGE',
      message: 'Expected `count` to be an integer ≥ 1, got 0',
      string: 'RangeError: Expected `count` to be an integer ≥ 1, got 0',
    });
  });

  it('is the RangeError of a scalar its element type cannot hold', () => {
    using stream = device.createStream();
    const array = stream.alloc('u8', 4);
    const error = thrown(() => stream.fill(array, 256));
    expect(error).toBeInstanceOf(ArgumentRangeError);
    expect(seen(error)).toMatchObject({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE', message: expect.stringMatching(/^Expected `value` to be an integer 0\.\.255 \(u8\), got 256$/) });
  });
});

describe('isRxcudaError', () => {
  it("tells rxcuda's failures and argument errors from other errors", () => {
    const ours = [
      new CudaError(1, 'CUDA_ERROR_INVALID_VALUE', 'cuMemAlloc', 'invalid argument'),
      new NvrtcError(6, 'nvrtcCompileProgram failed', ''),
      new RxcudaError('failed'),
      new ArgumentTypeError('Expected `x` to be a number, got "a"'),
      new ArgumentRangeError('Expected `x` to be 0..1, got 2'),
    ];
    const theirs = [new TypeError('x'), new RangeError('x'), new Error('x'), Object.assign(new TypeError('x'), { code: 'ERR_INVALID_ARG_TYPE' }), 'a string', undefined, null];
    expect(ours.map(isRxcudaError)).toEqual([true, true, true, true, true]);
    expect(theirs.map(isRxcudaError)).toEqual(theirs.map(() => false));
  });

  it('leaves instanceof RxcudaError to failures, whose code is a number or undefined', () => {
    expect(new ArgumentTypeError('x') instanceof RxcudaError).toBe(false);
    expect(new ArgumentRangeError('x') instanceof RxcudaError).toBe(false);
  });
});
