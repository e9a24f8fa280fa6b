// Frames over every GPU of the machine (two host devices where there are fewer than two GPUs):
// each frame is scaled on the device its lane is on, by a built-in kernel compiled once and loaded
// on each device as the first frame gets there, then one frame's result is copied from device to
// device (a peer copy) and checked.
// Run: npx tsc && node dist/examples/multi-device.js
import { lastValueFrom, map, range, toArray } from 'rxjs';
import { Builtins, Device, download, enqueue, onStreams, upload } from 'rxcuda';

const devices = Device.count() > 1 ? Device.all() : Device.hosts(2);
const builtins = await Builtins.for(devices[0]!); // its kernels launch on a stream of any of the devices
const n = 1 << 16;

const frames = await lastValueFrom(
  range(0, 24).pipe(
    map((i) => new Float32Array(n).fill(i)),
    onStreams(devices, {
      lanesPerDevice: 2,
      inFlight: 4 * devices.length, // for all the devices together
      // A device that breaks: its frames are reported here and the others go on.
      onDeviceFault: (failure) => console.error(`frame ${failure.index} lost: ${String(failure.cause)}`),
    }),
    upload((x) => x, 'x'),
    enqueue((w, stream) => builtins.scale(stream, w.buffers.x, w.buffers.x, 2), 'scale'),
    download((w) => w.buffers.x, 'x'),
    toArray(),
  ),
);
for (const device of devices) {
  const mine = frames.filter((w) => w.lane.stream.device === device);
  console.log(`${device}: ${mine.length} frames, all right: ${mine.every((w) => w.results.x.every((v) => v === 2 * w.index))}`);
}

// A copy between two devices' memory: ordered on the stream it is enqueued on, after an event of
// the other device's stream.
const [first, last] = [devices[0]!, devices.at(-1)!];
using a = first.createStream(), b = last.createStream();
using x = a.alloc('f32', n);
builtins.fill(a, x, 21);
b.wait(a.record()); // x is written
using y = b.alloc('f32', n);
b.copy(y, x); // a peer copy
const host = last.allocHost('f32', n);
b.copy(host, y);
await b.synchronized();
console.log(`copied from ${first} to ${last} (${first.canAccessPeer(last) ? 'peer access' : 'staged through the host'}): ${host.data[n - 1]}`);
