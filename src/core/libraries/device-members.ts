// `device.blas` and `device.fft`: the libraries of a device as members of Device, added here
// (a module augmentation and two prototype getters) so that the device folder knows no library.
import { Device } from '../device/device.js';
import { Blas } from './blas.js';
import { Fft } from './fft.js';

declare module '../device/device.js' {
  interface Device {
    /**
     * cuBLAS of this device, in stream order (the CPU reference on the host device); the same as
     * `Blas.for(device)`. Nothing is loaded until its first call.
     * @example
     * device.blas.gemm(stream, a, b, c, { m, n, k });
     */
    readonly blas: Blas;
    /**
     * cuFFT of this device, in stream order (the CPU reference on the host device); the same as
     * `Fft.for(device)`. Nothing is loaded until its first call.
     * @example
     * device.fft.r2c(stream, samples, spectra, { shape: 4096, batch: 64 });
     */
    readonly fft: Fft;
  }
}

Object.defineProperties(Device.prototype, {
  blas: {
    get(this: Device) {
      return Blas.for(this);
    },
    configurable: true,
  },
  fft: {
    get(this: Device) {
      return Fft.for(this);
    },
    configurable: true,
  },
});
