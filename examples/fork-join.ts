// Fork one value's work onto two streams and join it back before the next kernel: two
// independent kernels of a value run concurrently, the third waits for both.
// Run: npx tsc && node dist/examples/fork-join.js
import { from, lastValueFrom, toArray } from 'rxjs';
import { Builtins, Device, download, enqueue, fanOut, onStreams, upload } from 'rxcuda';

const device = Device.default();
const builtins = await Builtins.for(device);
const n = 1 << 16;

const results = await lastValueFrom(
  from([1, 2, 3, 4]).pipe(
    onStreams(device, { lanes: 2 }),
    upload((k) => new Float32Array(n).fill(k), 'x'),
    fanOut(2, (w, stream, branch) => {
      // Branch 0 doubles x into a, branch 1 triples x into b, each on its own stream. Returning
      // the named array types it: w.buffers.a and w.buffers.b after this operator.
      const out = w.device('f32', n, branch === 0 ? 'a' : 'b');
      builtins.scale(stream, out, w.buffers.x, branch === 0 ? 2 : 3);
      return out;
    }),
    // Back on the value's stream, after both branches: sum = a + b.
    enqueue((w, stream) => {
      const sum = w.device('f32', n, 'sum');
      builtins.add(stream, sum, w.buffers.a, w.buffers.b);
      return sum;
    }, 'add'),
    download((w) => w.buffers.sum, 'sum'),
    toArray(),
  ),
);
for (const w of results) console.log(`value ${w.value}: a + b = ${w.results.sum[0]} (expected ${5 * w.value})`);
const wrong = results.filter((w) => w.results.sum.some((v) => v !== 5 * w.value));
console.log(wrong.length === 0 ? 'fork/join ok' : `${wrong.length} values wrong`);
process.exitCode = wrong.length === 0 ? 0 : 1;
