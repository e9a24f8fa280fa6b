import { describe, expect, expectTypeOf, it } from 'vitest';
import { CudaError, NvrtcError, PipelineError, RxcudaError } from '../../src/index.js';

describe('CudaError', () => {
  it('carries the code, the CUDA_ERROR name and the call', () => {
    const error = new CudaError(700, 'CUDA_ERROR_ILLEGAL_ADDRESS', 'cuStreamSynchronize', 'boom');
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.name, error.call, error.message]).toEqual([700, 'CUDA_ERROR_ILLEGAL_ADDRESS', 'cuStreamSynchronize', 'boom']);
  });

  it('tells sticky errors from recoverable ones', () => {
    expect(new CudaError(700, 'CUDA_ERROR_ILLEGAL_ADDRESS', 'x', '').sticky).toBe(true);
    expect(new CudaError(719, 'CUDA_ERROR_LAUNCH_FAILED', 'x', '').sticky).toBe(true);
    expect(new CudaError(1, 'CUDA_ERROR_INVALID_VALUE', 'x', '').sticky).toBe(false);
  });
});

describe('NvrtcError', () => {
  it('puts the compiler log in the message and in `log`', () => {
    const error = new NvrtcError(6, 'nvrtcCompileProgram failed', 'kernel.cu(3): error: identifier "x" is undefined');
    expect(error.code).toBe(6);
    expect(error.log).toContain('identifier "x"');
    expect(error.message).toContain('nvrtcCompileProgram failed');
    expect(error.message).toContain('identifier "x"');
  });
});

describe('RxcudaError', () => {
  const cuda = new CudaError(1, 'CUDA_ERROR_INVALID_VALUE', 'cuMemAllocAsync', 'invalid argument');
  const nvrtc = new NvrtcError(6, 'nvrtcCompileProgram failed', '');
  const pipeline = new PipelineError('launch(saxpy)', 3, cuda);

  it('is the base of every rxcuda error class, and an Error', () => {
    for (const error of [cuda, nvrtc, pipeline]) {
      expect(error).toBeInstanceOf(RxcudaError);
      expect(error).toBeInstanceOf(Error);
    }
    expect(new TypeError('x')).not.toBeInstanceOf(RxcudaError);
  });

  it('has a numeric code where the failing library gives one, and undefined where none does', () => {
    expect([cuda.code, nvrtc.code, pipeline.code]).toEqual([1, 6, undefined]);
    expect(pipeline.cause).toBe(cuda);
    expectTypeOf<RxcudaError['code']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CudaError['code']>().toEqualTypeOf<number>();
    expectTypeOf<NvrtcError['code']>().toEqualTypeOf<number>();
  });

  it('names itself, its code and its cause when made directly', () => {
    const cause = new Error('underneath');
    const error = new RxcudaError('failed', 42, { cause });
    expect([error.name, error.message, error.code, error.cause]).toEqual(['RxcudaError', 'failed', 42, cause]);
    expect(new RxcudaError('failed').code).toBeUndefined();
  });

  it('keeps each class its own name', () => {
    expect([cuda.name, nvrtc.name, pipeline.name]).toEqual(['CUDA_ERROR_INVALID_VALUE', 'NvrtcError', 'PipelineError']);
  });
});
