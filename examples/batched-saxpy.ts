// Batched saxpy with host post-processing: each batch is uploaded, transformed by the built-in
// axpy kernel, read back, and summarized on the host, with three batches in flight.
// Run: npx tsc && node dist/examples/batched-saxpy.js
import { lastValueFrom, range, map, reduce } from 'rxjs';
import { Builtins, Device, download, enqueue, onStreams, upload } from 'rxcuda';

const device = Device.default();
const builtins = await Builtins.for(device);
const batch = 1 << 15;

const total = await lastValueFrom(
  range(0, 12).pipe(
    map((b) => ({ b, x: Float32Array.from({ length: batch }, (_, i) => (i % 100) / 10), y: new Float32Array(batch).fill(b) })),
    onStreams(device, { lanes: 3, inFlight: 3 }),
    upload((v) => v.x, 'x'),
    upload((v) => v.y, 'y'),
    // Built-ins enqueue on the stream they are given: here, the batch's lane.
    enqueue((w, stream) => builtins.axpy(stream, 0.5, w.buffers.x, w.buffers.y), 'axpy'),
    download((w) => w.buffers.y, 'y'),
    map((w) => {
      const y = w.results.y; // a Float32Array, as y is a DeviceArray<'f32'>
      const mean = y.reduce((s, v) => s + v, 0) / y.length;
      console.log(`batch ${w.value.b}: mean ${mean.toFixed(4)}`);
      return mean;
    }),
    reduce((sum, mean) => sum + mean, 0),
  ),
);
console.log(`sum of batch means: ${total.toFixed(4)} on ${device.name}`);
