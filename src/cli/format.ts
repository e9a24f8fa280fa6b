// How the command line writes sizes, devices and pipeline stages for people.
import type { Device } from '../index.js';

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `512 bytes`, `16 KiB`, `1.5 MiB`: three significant digits at most, no trailing zeros. */
export function bytes(count: number): string {
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${UNITS[unit]}`;
}

/** `NVIDIA H200 (device 0)`, or `the host device (CPU reference backend; no CUDA device here)`. */
export function describeDevice(device: Device): string {
  return device.kind === 'host' ? 'the host device (CPU reference backend; no CUDA device here)' : `${device.name} (${device})`;
}

/** A timeline summary's stage for a column: `invert`, or `host step` for JavaScript run in order. */
export { stageLabel } from '../operators/timeline/span.js';
