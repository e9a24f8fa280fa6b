// Which calls of rxcuda's wait for work on another stream? Each call is timed while a kernel on
// another stream spins for up to a second (it gives up by itself, so nothing here can deadlock).
// A call that took about as long as the kernel waited for it. Run: node scripts/blocking-probe.mjs
import { Device } from '../dist/src/index.js';

const testKernelSource = `
__device__ unsigned long long now() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
extern "C" __global__ void latch(volatile unsigned* flag, unsigned* out, unsigned value, unsigned long long timeout) {
  unsigned long long start = now();
  while (*flag == 0) { if (now() - start > timeout) { *out = 0xdead; return; } }
  *out = value;
}`;
const device = Device.default();
const module = await device.compile(testKernelSource, { name: 'probe.cu' });
const latch = module.kernel('latch', ['ptr', 'ptr', 'u32', 'u64']);
const busy = device.createStream({ nonBlocking: true });
const flag = device.allocHost('u32', 1);
const out = device.allocHost('u32', 1);
flag.data[0] = 0;

async function probe(name, fn) {
  out.data[0] = 0;
  busy.launch(latch, { grid: 1, block: 1 }, [flag, out, 7, 1_000_000_000n]);
  await new Promise((r) => setTimeout(r, 20));
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  const stillBusy = !busy.query();
  await busy.synchronized();
  console.log(`${name.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms  ${stillBusy ? '' : '(the kernel had finished: WAITED)'}`);
}

const spare = device.createStream();
await probe('allocHost 1 MiB', () => void device.allocHost('u8', 1 << 20));
await probe('HostArray.close (unused)', () => device.allocHost('u8', 64).close());
await probe('allocHost after a close', () => {
  device.allocHost('u8', 64).close();
  device.allocHost('u8', 64);
});
await probe('createStream', () => void device.createStream());
await probe('createStream + close', () => device.createStream().close());
await probe('createEvent + close', () => device.createEvent().close());
await probe('stream alloc + close', () => spare.alloc('u8', 1 << 20).close());
const compiled = await device.compile(testKernelSource + '\n// second', { name: 'probe2.cu' });
await probe('compile (cached) + load', () => device.compile(testKernelSource + '\n// second', { name: 'probe2.cu' }));
await probe('module close (unused)', () => compiled.close());
await probe('hostLaunch on a fresh stream', () => device.createStream().hostLaunch(() => {}));
await probe('copy host→device (pinned)', () => spare.copy(spare.alloc('u8', 64), device.allocHost('u8', 64)));
await probe('spare.synchronized()', () => spare.synchronized());
process.exit(0);
