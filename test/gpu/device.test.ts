import { expect, it } from 'vitest';
import { Device } from '../../src/index.js';
import { describeGpu } from '../support/gpu.js';

describeGpu('Device', () => {
  it('enumerates devices with their properties', () => {
    expect(Device.count()).toBeGreaterThan(0);
    const device = Device.default();
    expect(Device.get(0)).toBe(device);
    expect(Device.all()[0]).toBe(device);
    expect(device.name.length).toBeGreaterThan(0);
    expect(device.computeCapability[0]).toBeGreaterThanOrEqual(5);
    expect(device.arch).toBe(`sm_${device.properties.major}${device.properties.minor}`);
    expect(device.properties.multiprocessors).toBeGreaterThan(0);
    expect(device.properties.maxThreadsPerBlock).toBe(1024);
    expect(device.properties.warpSize).toBe(32);
  });

  it('reports free and total memory', () => {
    const device = Device.default();
    const { free, total } = device.memoryInfo();
    expect(total).toBe(device.properties.totalMemory);
    expect(free).toBeGreaterThan(0);
    expect(free).toBeLessThanOrEqual(total);
  });

  it('rejects an ordinal beyond the device count', () => {
    expect(() => Device.get(Device.count())).toThrow(RangeError);
    expect(() => Device.get(-1)).toThrow(RangeError);
    expect(() => Device.get(0.5)).toThrow(TypeError);
  });

  it('reports the driver and NVRTC versions', () => {
    const info = Device.driverInfo();
    expect(info.available).toBe(true);
    expect(info.version).toBeGreaterThanOrEqual(12000);
    expect(info.nvrtc.available).toBe(true);
    expect(info.nvrtc.version).toMatch(/^\d+\.\d+$/);
    expect(info.nvrtc.path).toMatch(/libnvrtc\.so/);
  });
});
