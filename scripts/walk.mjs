// The walk of one launch and one completion through rxcuda's files: the JavaScript stack where a
// pipeline's `launch` operator reaches the native launch (on the host device, the CPU kernel's
// launcher, the last JavaScript before the addon), and where a value whose work completed reaches
// the operator after `completed()`. Prints, for each, the files crossed in order (rxcuda's own,
// RxJS's hops shown as one `rxjs`), how many distinct files, and the U-turns: a file left for
// another and entered again further down the same walk. With a folder, walks that build instead (a
// checkout of another commit, built: dist/ and the addon), so that two builds can be compared:
//   node scripts/walk.mjs [folder]
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastValueFrom, map, range, toArray } from 'rxjs';

const root = resolve(process.argv[2] ?? '.');
const dist = join(root, 'dist', 'src');
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { Device, completed, launch, onStreams } = await load('index.js');
const { CpuLauncher } = await load('core/kernels/cpu-kernel.js');

Error.stackTraceLimit = 200;

/** The stack's frames from the innermost out, as `file` (relative to dist/src) or `rxjs`; others dropped. */
function frames(stack) {
  const out = [];
  for (const line of stack.split('\n').slice(1)) {
    const match = /\(?(?:file:\/\/)?(\/[^():]+):\d+:\d+\)?$/.exec(line.trim());
    if (!match) continue;
    const file = match[1];
    const name = file.startsWith(dist) ? relative(dist, file).replace(/\.js$/, '.ts') : file.includes('/node_modules/rxjs/') ? 'rxjs' : undefined;
    if (name !== undefined && out[out.length - 1] !== name) out.push(name);
  }
  return out;
}

/** The walk from the outermost frame in (or from the frame after the innermost that `from` matches), with its distinct files and its U-turns. */
function summary(stack, from) {
  const walk = frames(stack).reverse();
  const start = from ? Math.max(0, walk.findLastIndex(from) + 1) : 0;
  const path = walk.slice(start);
  const seen = new Set();
  const uTurns = [];
  for (let i = 0; i < path.length; i++) {
    if (seen.has(path[i]) && path[i] !== 'rxjs') uTurns.push(`${path.slice(path.lastIndexOf(path[i], i - 1), i + 1).join(' → ')}`);
    seen.add(path[i]);
  }
  const files = [...seen].filter((f) => f !== 'rxjs');
  return { files: files.length, uTurns: uTurns.length, path: path.join(' → '), uTurnPaths: uTurns };
}

// The last launch's stack, taken where the CPU kernel's launcher is called.
let launchStack = '';
const bind = CpuLauncher.prototype.bind;
CpuLauncher.prototype.bind = function (...args) {
  const launcher = bind.apply(this, args);
  return function (...callArgs) {
    launchStack = new Error().stack;
    return launcher.apply(this, callArgs);
  };
};

const device = Device.host();
const module = await device.compile('extern "C" __global__ void touch(unsigned n) {}');
const touch = module.kernel('touch', ['u32'], { cpu: () => {} });
let completionStack = '';
await lastValueFrom(
  range(0, 64).pipe(
    onStreams(device, { lanes: 1, inFlight: 1 }),
    launch(touch, { grid: 1, block: 1 }, [1]),
    completed(),
    map((w) => {
      completionStack = new Error().stack;
      return w.index;
    }),
    toArray(),
  ),
);
const result = {
  build: root,
  // From where RxJS hands the value to the launch operator's runner, down: further out, the
  // previous value's completion pulled this one in, through some of the same files.
  launch: summary(launchStack, (f) => f === 'rxjs'),
  // From the first rxcuda frame (the completion's dispatch) to the next operator.
  completion: summary(completionStack),
};
console.log(JSON.stringify(result, null, 2));
module.close?.();
