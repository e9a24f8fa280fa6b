// Whether a kernel that sets a graph condition (cudaGraphSetConditional, from the CUDA device
// runtime) compiles, links with libcudadevrt.a and loads on the default device, and whether a
// captured while loop of 5 iterations around it runs 5 times. Prints each stage, the values read
// back and `ok`; exits 1, saying where it stopped, otherwise. Small enough to run under
// compute-sanitizer (scripts/gpu-conditional.sh does).
//   node scripts/gpu-condition-link.mjs   (after the build)
import { Device, LaunchConfig } from '../dist/src/index.js';

const ITERATIONS = 5;
let stage = 'open the default device';
try {
  const device = Device.default();
  console.log(`device: ${device}`);
  const stream = device.createStream({ nonBlocking: true });
  stage = 'compile and link a source calling cudaGraphSetConditional';
  const module = await device.compile(`
extern "C" __global__ void start(unsigned* words, unsigned n) { words[0] = n; words[1] = 0; }
extern "C" __global__ void body(unsigned* words, cudaGraphConditionalHandle loop) {
  words[1] += 1;
  cudaGraphSetConditional(loop, --words[0] != 0);
}`, { name: 'condition-link.cu', cache: false });
  console.log('compiled, linked with the device runtime and loaded: yes');
  stage = 'get the kernel';
  const start = module.kernel('start', ['ptr<u32>', 'u32'], { cpu: (_, [w, n]) => void ((w[0] = n), (w[1] = 0)) });
  const body = module.kernel('body', ['ptr<u32>', 'condition'], {
    cpu: (_, [w, loop]) => {
      w[1] += 1;
      w[0] -= 1;
      loop.set(w[0] !== 0);
    },
  });
  console.log(`kernel: ${device.kind === 'cuda' ? `handle 0x${body.handle.toString(16)}` : 'CPU implementation (host device)'}`);
  stage = `capture a while loop of ${ITERATIONS} iterations`;
  const one = new LaunchConfig({ grid: 1, block: 1 });
  const words = stream.alloc('u32', 2);
  const graph = await stream.capture((s) => {
    s.launch(start, one, [words, ITERATIONS]);
    const more = s.condition({ initial: 1 });
    s.whileLoop(more, () => s.launch(body, one, [words, more]), { maxIterations: ITERATIONS });
  });
  await graph.ready();
  stage = 'instantiate and launch it';
  const exec = graph.instantiate();
  exec.launch(stream);
  stage = 'read the counters back';
  const host = device.allocHost('u32', 2);
  stream.copy(host, words);
  await stream.synchronized();
  const [left, runs] = host.data;
  console.log(`counter: ${left} (expected 0), iterations run: ${runs} (expected ${ITERATIONS})`);
  exec.close();
  graph.close();
  for (const memory of [host, words]) memory.close();
  stream.close();
  if (left !== 0 || runs !== ITERATIONS) {
    console.log('wrong values');
    process.exit(1);
  }
  console.log('ok');
} catch (error) {
  console.log(`failed to ${stage}:`, error);
  process.exit(1);
}
