// Every options object of the public API refuses a key it does not know, by name, with the known
// option it is nearest to (``Unknown option `nonblocking`; did you mean `nonBlocking`?``). The
// entry points are read from the declarations of the exports (test/support/entry-points.ts): a new
// one that takes options fails here until it has a call below, and the call must be refused.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  branchOnDevice, compile, Device, download, fanOut, framesFrom, host, LanePool, lanesFrom, launch, LaunchConfig, loopOnDevice, onStreams, Timeline,
  type DeviceArray, type Graph, type GraphExec, type GraphNode, type Kernel, type Stream, type Template,
} from '../../src/index.js';
import { connectJetStream, fromJetStream, toJetStream } from '../../src/operators/jetstream/index.js';
import { demo } from '../../src/cli/demo.js';
import { info } from '../../src/cli/info.js';
import { optionsParameters, type OptionsParameter } from '../support/entry-points.js';

type Options = Record<string, unknown>;

const device = Device.host();
let stream: Stream;
let kernel: Kernel<readonly ['ptr<u32>', 'u32']>;
let x: DeviceArray<'u32'>;
let f: DeviceArray<'f32'>;
let graph: Graph;
let node: GraphNode<readonly ['ptr<u32>', 'u32']>;
let exec: GraphExec;
let template: Template;
let pool: LanePool;
const source = 'extern "C" __global__ void store(unsigned* p, unsigned v) { *p = v; }';
const consumer = { fetch() {}, info() {} } as never;
const jetstream = { publish() {} } as never;
const identity = <T>(value: T) => value;

beforeAll(async () => {
  stream = device.createStream();
  kernel = (await device.compile(source)).kernel('store', ['ptr<u32>', 'u32'], { cpu: (_, [p, v]) => void (p[0] = v) });
  x = stream.alloc('u32', 1);
  f = stream.alloc('f32', 8);
  graph = device.createGraph();
  node = graph.addKernel(kernel, { grid: 1, block: 1 }, [x, 1]);
  exec = graph.instantiate();
  template = device.template(source);
  pool = new LanePool(device);
});
afterAll(() => {
  pool.close();
  exec.close();
  graph.close();
  template.close();
  stream.close();
});

/** For each options parameter (`id(index)path`), a call that gives it `options` and valid everything else. */
const calls: Record<string, (options: Options) => unknown> = {
  'cli/demo: demo(0)': (o) => demo(o as never),
  'cli/info: info(0)': (o) => info(o),
  'rxcuda/jetstream: connectJetStream(0)': (o) => connectJetStream(o as never),
  'rxcuda/jetstream: fromJetStream(2)': (o) => fromJetStream(consumer, pool, o as never),
  'rxcuda/jetstream: fromJetStream(2)deadLetter': (o) => fromJetStream(consumer, pool, { process: identity, deadLetter: o as never }),
  'rxcuda/jetstream: toJetStream(3)': (o) => toJetStream(jetstream, 'results', () => new Uint8Array(1), o),
  'rxcuda: Blas#gemm(4)': (o) => device.blas.gemm(stream, f, f, f, o as never),
  'rxcuda: Device#compile(1)': (o) => device.compile(source, o),
  'rxcuda: Device#createEvent(0)': (o) => device.createEvent(o),
  'rxcuda: Device#createStream(0)': (o) => device.createStream(o),
  'rxcuda: Device#template(1)': (o) => device.template(source, o),
  'rxcuda: Fft#c2c(3)': (o) => device.fft.c2c(stream, f, f, o as never),
  'rxcuda: Fft#c2r(3)': (o) => device.fft.c2r(stream, f, f, o as never),
  'rxcuda: Fft#r2c(3)': (o) => device.fft.r2c(stream, f, f, o as never),
  'rxcuda: Graph#addCopy(2)': (o) => graph.addCopy(x, x, o),
  'rxcuda: Graph#addEmpty(0)': (o) => graph.addEmpty(o),
  'rxcuda: Graph#addFill(2)': (o) => graph.addFill(x, 0, o),
  'rxcuda: Graph#addHostFunction(2)': (o) => graph.addHostFunction(1n, 0n, o),
  'rxcuda: Graph#addKernel(1)': (o) => graph.addKernel(kernel, o as never, [x, 1]),
  'rxcuda: Graph#addKernel(3)': (o) => graph.addKernel(kernel, { grid: 1, block: 1 }, [x, 1], o),
  'rxcuda: Graph#addRecord(1)': (o) => graph.addRecord(device.createEvent(), o),
  'rxcuda: Graph#addStep(1)': (o) => graph.addStep(() => {}, o),
  'rxcuda: Graph#addWait(1)': (o) => graph.addWait(stream.record(), o),
  'rxcuda: Graph#condition(0)': (o) => graph.condition(o),
  'rxcuda: Graph#addIf(2)': (o) => graph.addIf(graph.condition(), () => {}, o),
  'rxcuda: Graph#addIfElse(3)': (o) => graph.addIfElse(graph.condition(), () => {}, () => {}, o),
  'rxcuda: Graph#addSetCondition(3)': (o) => graph.addSetCondition(graph.condition(), x, 'value', o),
  'rxcuda: Graph#addSwitch(2)': (o) => graph.addSwitch(graph.condition(), [() => {}], o),
  'rxcuda: Graph#addWhile(2)': (o) => graph.addWhile(graph.condition(), () => {}, o),
  // The conditional methods of a stream take options while it captures.
  'rxcuda: Stream#condition(0)': (o) => stream.capture((s) => void s.condition(o)),
  'rxcuda: Stream#conditionFrom(2)': (o) => stream.capture((s) => void s.conditionFrom(x, 'value', o)),
  'rxcuda: Stream#whileLoop(2)': (o) => stream.capture((s) => s.whileLoop(s.condition(), () => {}, o)),
  'rxcuda: GraphExec#setArgs(2)': (o) => exec.setArgs(node, [x, 2], o as never),
  'rxcuda: Kernel#suggestedBlockSize(0)': (o) => kernel.suggestedBlockSize(o),
  'rxcuda: LanePool.constructor(1)': (o) => new LanePool(device, o),
  'rxcuda: LaunchConfig.constructor(0)': (o) => new LaunchConfig(o as never),
  'rxcuda: LaunchConfig.from(0)': (o) => LaunchConfig.from(o as never),
  'rxcuda: Module#kernel(2)': (o) => kernel.module.kernel('store', ['ptr<u32>', 'u32'], o),
  'rxcuda: Stream#hostLaunch(1)': (o) => stream.hostLaunch(() => {}, o),
  'rxcuda: Stream#launch(1)': (o) => stream.launch(kernel, o as never, [x, 1]),
  'rxcuda: Stream#record(0)': (o) => stream.record(o),
  'rxcuda: Stream#synchronized(0)': (o) => stream.synchronized(o),
  'rxcuda: Template#kernel(2)': (o) => template.kernel('store', ['ptr<u32>', 'u32'], o as never),
  'rxcuda: Timeline#toChromeTrace(0)': (o) => new Timeline().toChromeTrace(o),
  'rxcuda: Timeline#toHtml(0)': (o) => new Timeline().toHtml(o),
  'rxcuda: Timeline#writeHtml(1)': (o) => new Timeline().writeHtml(join(tmpdir(), 'rxcuda-strict-options.html'), o),
  'rxcuda: compile(1)': (o) => compile(source, o as never),
  'rxcuda: download(2)': (o) => download(() => x, 'out', o as never),
  'rxcuda: fanOut(2)': (o) => fanOut(1, () => [identity], o),
  'rxcuda: framesFrom(1)': (o) => framesFrom(device, o as never, () => {}),
  'rxcuda: host(1)': (o) => host(() => {}, o),
  'rxcuda: lanesFrom(2)': (o) => lanesFrom([1], device, o),
  'rxcuda: launch(1)': (o) => launch(kernel, o as never, [x, 1]),
  'rxcuda: launch(2)': (o) => launch(kernel, () => ({ config: { grid: 1, block: 1 }, args: [x, 1] }), o),
  'rxcuda: launch(3)': (o) => launch(kernel, { grid: 1, block: 1 }, [x, 1], o),
  'rxcuda: onStreams(1)': (o) => onStreams(device, o),
  'rxcuda: loopOnDevice(1)': (o) => loopOnDevice(identity, o as never),
  'rxcuda: branchOnDevice(2)': (o) => branchOnDevice(() => x, [identity], o),
};

const keyOf = (p: OptionsParameter) => `${p.id}(${p.index})${p.path}`;
/** The key as a user might misspell it: its case flipped (`nonBlocking` as `nonblocking`, `timing` as `TIMING`). */
const misspelt = (key: string) => (key === key.toLowerCase() ? key.toUpperCase() : key.toLowerCase());

/** What `call` throws or rejects with. */
async function refusal(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('options objects of the public API', () => {
  const parameters = optionsParameters();

  it('have a call here for each entry point that takes options, read from the exported declarations', () => {
    expect(parameters.length).toBeGreaterThan(30);
    expect(parameters.map(keyOf).sort()).toEqual(Object.keys(calls).sort());
  });

  it('refuse each misspelt option with a TypeError that names it and the option it is near, and know every option they declare', async () => {
    const wrong: string[] = [];
    for (const parameter of parameters) {
      const call = calls[keyOf(parameter)];
      if (!call) continue; // the test above says which
      for (const key of parameter.keys) {
        // Every declared option, left undefined, and one misspelt: the misspelt one alone is unknown.
        const options: Options = Object.fromEntries(parameter.keys.map((k) => [k, undefined]));
        options[misspelt(key)] = 1;
        const error = await refusal(() => call(options));
        const prefix = parameter.path ? `${parameter.path}.` : '';
        const expected = `Unknown option \`${prefix}${misspelt(key)}\`; did you mean \`${prefix}${key}\`?`;
        if (!(error instanceof TypeError) || error.message !== expected)
          wrong.push(`${keyOf(parameter)} with ${misspelt(key)}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('an unknown option', () => {
  it('is named with the options there are when none is near it', () => {
    expect(() => device.createStream({ zzz: 1 } as never)).toThrow(new TypeError('Unknown option `zzz`; the options are `nonBlocking`, `priority`'));
  });

  it('is refused also where a launch reuses the configuration of the launch before it', async () => {
    stream.launch(kernel, { grid: 1, block: 1 }, [x, 1]);
    expect(() => stream.launch(kernel, { grid: 1, block: 1, blcok: 2 } as never, [x, 1])).toThrow(
      new TypeError('Unknown option `blcok`; did you mean `block`?'),
    );
    await stream.synchronized();
  });

  it('is told apart from a misspelling by transposed letters too', () => {
    expect(() => stream.hostLaunch(() => {}, { timeuot: 5 } as never)).toThrow(new TypeError('Unknown option `timeuot`; did you mean `timeout`?'));
    expect(() => onStreams(device, { lane: 2 } as never)).toThrow(new TypeError('Unknown option `lane`; did you mean `lanes`?'));
  });
});
