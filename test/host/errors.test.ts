import { describe, expect, it } from 'vitest';
import { CudaError, NvrtcError } from '../../src/index.js';

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
