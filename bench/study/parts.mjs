// Where a pipeline's main-thread time and JS heap go, by part of rxcuda: V8's CPU profiler and
// its sampling heap profiler, each sample given to the part that owns the innermost frame of
// rxcuda's (or RxJS's, or the caller's) code on its stack. Native calls (a launch, a copy, a
// notification: the driver's time, or the host backend's) count apart, as does a sample with a
// CPU kernel of the host device on its stack, as a GPU runs its kernels elsewhere. The heap
// profile has no native calls: what the addon allocates counts for the JavaScript that called it.
import inspector from 'node:inspector';

/** The parts, in the order the tables list them, each with the files (under src/) it owns. */
export const PARTS = [
  ['operators', /\/src\/operators\/(?!pipeline\/|timeline\/)[^/]+$|\/src\/operators\/pipeline\/(operate|slots|pipeline-error)\./],
  ['RxJS', /\/node_modules\/rxjs\//],
  ['envelope', /\/src\/operators\/pipeline\/work\./],
  ['lane pool', /\/src\/operators\/pipeline\/(lane-pool|pool-[a-z]+|dispatcher)\./],
  ['replay', /\/src\/operators\/pipeline\/replayer\.|\/src\/core\/graphs\//],
  ['launch', /\/src\/core\/kernels\//],
  ['memory and copies', /\/src\/core\/memory\/|\/src\/core\/device\/stream-commands\./],
  ['completion', /\/src\/core\/(native|queue)\/|\/src\/core\/device\/(stream-(steps|waits)|completion-points|spin-wait)\./],
  ['device and stream', /\/src\/core\//],
  ['timeline', /\/src\/operators\/timeline\//],
];
/** Parts of a profile that no file owns. */
const GC = 'garbage collection';
const OUTSIDE = 'outside JavaScript (event loop, Node-API)';
const NODE = 'Node.js';
export const NATIVE = 'native calls (driver, or host backend)';
const CALLER = "the pipeline's own functions";
export const HOST_KERNELS = "host device's CPU kernels";

function partOfUrl(url) {
  if (!url) return undefined;
  for (const [part, pattern] of PARTS) if (pattern.test(url)) return part;
  if (url.startsWith('node:')) return NODE;
  return CALLER;
}

/** The part of a stack, given as frames from the root to the leaf. */
function partOfStack(frames, natives = true) {
  if (frames.some((f) => /\/src\/core\/kernels\/cpu-kernel\./.test(f.url))) return HOST_KERNELS;
  const leaf = frames[frames.length - 1];
  if (leaf.functionName === '(garbage collector)') return GC;
  if (leaf.functionName === '(program)') return OUTSIDE;
  // The addon's functions have no script (and no reliable name in profiles): a leaf without one
  // called from rxcuda's core is a native call, whose time is the driver's (the host backend's).
  const caller = frames[frames.length - 2];
  if (natives && !leaf.url && caller && /\/src\/core\//.test(caller.url)) return NATIVE;
  for (let i = frames.length - 1; i >= 0; i--) {
    const part = partOfUrl(frames[i].url);
    if (part) return part;
  }
  return OUTSIDE;
}

/** A function and its place, in words. */
const siteOf = (f) => `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;

const post = (session, method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

/** Each node's stack, from the root to it, by node id. */
function stacks(nodes, childrenOf) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out = new Map();
  const walk = (node, above) => {
    const frames = [...above, node.callFrame];
    out.set(node.id, frames);
    for (const child of childrenOf(node)) walk(byId.get(child) ?? child, frames);
  };
  walk(nodes[0], []);
  return out;
}

/**
 * Runs `body` (async) under the CPU profiler, sampling every `intervalUs`; returns the
 * microseconds of main-thread time each part took (idle time left out), the total, and the
 * functions' own time, the busiest first (a native call's, by the function that made it).
 */
export async function profileParts(body, intervalUs = 50) {
  const session = new inspector.Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: intervalUs });
  await post(session, 'Profiler.start');
  await body();
  const { profile } = await post(session, 'Profiler.stop');
  session.disconnect();
  const frames = stacks(profile.nodes, (n) => n.children ?? []);
  const us = {};
  const sites = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const stack = frames.get(id);
    const delta = profile.timeDeltas[i + 1] ?? 0; // the time until the next sample
    const leaf = stack[stack.length - 1];
    if (leaf.functionName === '(idle)') return;
    const part = partOfStack(stack.slice(1)); // the root frame is no code
    us[part] = (us[part] ?? 0) + delta;
    const site = part === NATIVE ? `native call from ${siteOf(stack[stack.length - 2])}` : siteOf(leaf);
    sites.set(site, (sites.get(site) ?? 0) + delta);
    total += delta;
  });
  return { us, total, sites: [...sites].sort((a, b) => b[1] - a[1]) };
}

/**
 * Runs `body` (async) under the sampling heap profiler, counting what young and old collections
 * freed too; returns the bytes allocated by each part and by the busiest sites (function and
 * line), and the total.
 */
export async function heapParts(body, intervalBytes = 256) {
  const session = new inspector.Session();
  session.connect();
  await post(session, 'HeapProfiler.enable');
  await post(session, 'HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await body();
  const { profile } = await post(session, 'HeapProfiler.stopSampling');
  session.disconnect();
  const bytes = {};
  const sites = new Map();
  let total = 0;
  const walk = (node, above) => {
    const frames = [...above, node.callFrame];
    if (node.selfSize > 0) {
      const part = partOfStack(frames.slice(1), false);
      bytes[part] = (bytes[part] ?? 0) + node.selfSize;
      const site = siteOf(node.callFrame);
      sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, frames);
  };
  walk(profile.head, []);
  return { bytes, total, sites: [...sites].sort((a, b) => b[1] - a[1]) };
}

/** Every part's name, in table order. */
export const PART_NAMES = [...PARTS.map(([name]) => name), NATIVE, OUTSIDE, GC, NODE, CALLER, HOST_KERNELS];
