// Compile options are checked by name before anything is compiled, on the host device too (which
// compiles the source as well where a CUDA compiler is found): what a GPU would refuse is refused.
import { describe, expect, it } from 'vitest';
import { Device } from '../../src/index.js';

const device = Device.host();

describe('compile options', () => {
  it('are refused by name on the host device, for compile and template alike', async () => {
    const refused: [object, ErrorConstructor, string][] = [
      [{ defines: { 'A-B': 1 } }, TypeError, 'Expected `defines` to be macro names of letters, digits and underscores, got "A-B"'],
      [{ defines: { A: Number.NaN } }, RangeError, 'Expected `defines.A` to be a finite number, got NaN'],
      [{ std: 'c++99' }, RangeError, 'Expected `std` to be one of c++03, c++11, c++14, c++17, c++20, c++23, c++26, got "c++99"'],
      [{ arch: 'banana' }, TypeError, "Expected `arch` to be an architecture such as 'sm_90' or 'compute_90', got \"banana\""],
      [{ options: '-O3' }, TypeError, 'Expected `options` to be an array of strings, got "-O3"'],
      [{ includePaths: 'x' }, TypeError, 'Expected `includePaths` to be an array of strings, got "x"'],
      [{ expressions: 'k' }, TypeError, 'Expected `expressions` to be an array of strings, got "k"'],
      [{ cache: 5 }, TypeError, 'Expected `cache` to be a directory, or false, got 5'],
      [{ name: '' }, TypeError, 'Expected `name` to be a file name, got ""'],
    ];
    for (const [options, Class, message] of refused) {
      await expect(device.compile('x', options as never)).rejects.toThrow(new Class(message));
      expect(() => device.template('x', options as never)).toThrow(new Class(message));
    }
    await expect(device.compile('extern "C" __global__ void k() { int n = N; (void)n; }', { std: 'c++20', defines: { N: 4, FAST: true, MODE: 'a', 'MAX(a,b)': '((a)>(b)?(a):(b))' }, cache: false })).resolves.toBeDefined();
  });
});
