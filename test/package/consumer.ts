// A program a user of the published package writes: type-checked in strict mode against the
// installed package's declarations, then run. It prints what it read back, as JSON.
import { Device, LanePool, Timeline, download, lanesFrom, upload, type DeviceArray, type Stream } from 'rxcuda';
import { lastValueFrom, map, toArray } from 'rxjs';

const device: Device = Device.host();
const stream: Stream = device.createStream();
const host = device.allocHost('f32', 4);
host.data.set([1, 2, 3, 4]);
const onDevice: DeviceArray<'f32'> = stream.alloc('f32', 4);
stream.copy(onDevice, host);
stream.fill(host, 0);
stream.copy(host, onDevice);
await stream.synchronized();
const roundTrip: number[] = Array.from(host.data);
stream.close();

const timeline = new Timeline();
const pool = new LanePool(device, { lanes: 2, timeline });
const frames = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])];
const pipeline: number[][] = await lastValueFrom(
  lanesFrom(frames, pool).pipe(
    upload((frame) => frame, 'frame'),
    download((work) => {
      const frame = work.buffers['frame'];
      if (!frame) throw new Error('no frame buffer');
      return frame;
    }, 'frame'),
    map((work) => Array.from(work.results['frame'] ?? [], Number)),
    toArray(),
  ),
);
pool.close();

console.log(JSON.stringify({ kind: device.kind, roundTrip, pipeline: pipeline.sort((a, b) => a[0]! - b[0]!), spans: timeline.spans().length }));
