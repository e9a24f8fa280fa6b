// The libraries' element types are checked at compile time (this file is type-checked by
// `npm test`'s pretest): a GEMM or a transform of mismatched arrays does not compile, and what
// does compile runs on the host device.
import { describe, expect, it } from 'vitest';
import { Device, type DeviceArray } from '../../src/index.js';

describe('library calls at compile time', () => {
  const device = Device.host();

  it('take GEMM operands of one element type, and C of that type or f32 for 16-bit ones', async () => {
    using s = device.createStream();
    const [a32, b32, c32] = [s.alloc('f32', 4), s.alloc('f32', 4), s.alloc('f32', 4)];
    const [a16, b16, c16] = [s.alloc('f16', 4), s.alloc('f16', 4), s.alloc('f16', 4)];
    const [abf, bbf] = [s.alloc('bf16', 4), s.alloc('bf16', 4)];
    const shape = { m: 2, n: 2, k: 2 };
    const refuse = (call: () => void) => expect(call).toThrow(TypeError);
    device.blas.gemm(s, a32, b32, c32, shape);
    device.blas.gemm(s, a16, b16, c16, shape);
    device.blas.gemm(s, a16, b16, c32, shape);
    device.blas.gemm(s, abf, bbf, c32, shape);
    // @ts-expect-error: B of another element type than A
    refuse(() => device.blas.gemm(s, a32, b16, c32, shape));
    // @ts-expect-error: an f16 C for f32 operands
    refuse(() => device.blas.gemm(s, a32, b32, c16, shape));
    // @ts-expect-error: bf16 with f16
    refuse(() => device.blas.gemm(s, abf, b16, c32, shape));
    // @ts-expect-error: integers
    refuse(() => device.blas.gemm(s, s.alloc('i32', 4), s.alloc('i32', 4), s.alloc('i32', 4), shape));
    // @ts-expect-error: pinned host memory is not a DeviceArray
    refuse(() => device.blas.gemm(s, device.allocHost('f32', 4), b32, c32, shape));
    await s.synchronized();
  });

  it('take transforms of f32 or f64 data, the output of the input\'s type', async () => {
    using s = device.createStream();
    const [x32, y32]: [DeviceArray<'f32'>, DeviceArray<'f32'>] = [s.alloc('f32', 8), s.alloc('f32', 8)];
    const y64 = s.alloc('f64', 8);
    device.fft.c2c(s, x32, y32, { shape: 4 });
    device.fft.r2c(s, x32, y32, { shape: 4 });
    // @ts-expect-error: an f64 output for f32 input
    expect(() => device.fft.c2c(s, x32, y64, { shape: 4 })).toThrow(TypeError);
    // @ts-expect-error: f16 data
    expect(() => device.fft.c2c(s, s.alloc('f16', 8), s.alloc('f16', 8), { shape: 4 })).toThrow(TypeError);
    // @ts-expect-error: a direction for a real transform (refused at run time too)
    expect(() => device.fft.r2c(s, x32, y32, { shape: 4, direction: 'inverse' })).toThrow(TypeError);
    await s.synchronized();
  });
});
