// The launch context: pre-launch hooks in three scopes, currentLaunch(), and kernels specialized by
// their launch, on both backends.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastValueFrom, range, toArray } from 'rxjs';
import {
  LaunchConfig, LaunchContext, LaunchHookError, NoCurrentLaunchError, PipelineError, completed, currentLaunch, download, launch, onLaunch, onStreams,
  type Device, type Disposer, type Kernel, type Stream, type Template,
} from '../../src/index.js';
import { describeBackends } from '../support/backends.js';
import { testKernels } from '../support/kernels.js';
import { makeLaunchContext } from '../../src/core/api/launch-context.js';

type Store = Kernel<readonly ['ptr', 'u32']>;
const one = { grid: 1, block: 1 };

describe('currentLaunch', () => {
  it('throws outside a launch, saying where it can be called', () => {
    expect(() => currentLaunch()).toThrow(NoCurrentLaunchError);
    expect(() => currentLaunch()).toThrow(/inside a pre-launch hook .* a specializer, or a CPU implementation/);
  });
});

describeBackends('pre-launch hooks', (getDevice) => {
  let device: Device;
  let store: Store;
  let stream: Stream;
  const disposers: Disposer[] = [];
  beforeAll(async () => {
    device = getDevice();
    ({ store } = await testKernels(device));
  });
  afterEach(() => {
    disposers.splice(0).forEach((dispose) => dispose());
    stream?.close();
  });
  const register = (disposer: Disposer) => (disposers.push(disposer), disposer);

  it('are called global, then kernel, then pipeline, each in registration order, with the context', async () => {
    const order: string[] = [];
    register(onLaunch(function g1() { order.push('global 1'); }));
    register(onLaunch(() => void order.push('global 2')));
    register(store.onLaunch(() => void order.push('kernel 1')));
    register(store.onLaunch((context) => void order.push(`kernel 2 ${context.kernel.name} ${context.block.join('×')}`)));
    const word = device.allocHost('u32', 1);
    await lastValueFrom(
      range(0, 1).pipe(
        onStreams(device, { lanes: 1 }),
        launch(store, () => ({ config: { grid: 1, block: [2, 1] }, args: [word, 5] }), {
          hooks: [() => void order.push('pipeline 1'), () => void order.push('pipeline 2')],
        }),
        completed(),
      ),
    );
    expect(order).toEqual(['global 1', 'global 2', 'kernel 1', 'kernel 2 store 2×1×1', 'pipeline 1', 'pipeline 2']);
    expect(word.data[0]).toBe(5);
  });

  it('see an immutable context whose arguments are a copy', () => {
    stream = device.createStream();
    const word = device.allocHost('u32', 1);
    const args: [typeof word, number] = [word, 1];
    let seen: LaunchContext | undefined;
    register(store.onLaunch((context) => void (seen = context)));
    stream.launch(store, { grid: [2, 3], block: 4 }, args);
    args[1] = 99;
    expect(seen).toBeInstanceOf(LaunchContext);
    expect([Object.isFrozen(seen), Object.isFrozen(seen!.args), Object.isFrozen(seen!.grid)]).toEqual([true, true, true]);
    expect(seen!.args).toEqual([word, 1]);
    expect([seen!.grid, seen!.block, seen!.sharedMem, seen!.cooperative, seen!.stream]).toEqual([[2, 3, 1], [4, 1, 1], 0, false, stream]);
    expect(() => ((seen as { sharedMem: number }).sharedMem = 5)).toThrow(TypeError);
  });

  it('fail the launch with a LaunchHookError naming the hook, the kernel and the launch, and nothing is enqueued', async () => {
    stream = device.createStream();
    const word = device.allocHost('u32', 1);
    stream.launch(store, one, [word, 1]);
    const dispose = register(store.onLaunch(function refuses() {
      throw new RangeError('not today');
    }));
    let error: unknown;
    try {
      stream.launch(store, one, [word, 2]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LaunchHookError);
    const hookError = error as LaunchHookError;
    expect(hookError.hook).toBe('refuses');
    expect(hookError.cause).toEqual(new RangeError('not today'));
    expect(hookError.message).toMatch(/Pre-launch hook refuses failed for kernel 'store'.*not today/s);
    expect(hookError.message).toContain('store<<<1×1×1, 1×1×1>>>(');
    expect(hookError.context.args[1]).toBe(2);
    dispose();
    stream.launch(store, one, [word, 3]);
    await stream.synchronized();
    expect(word.data[0]).toBe(3); // 2 never ran; later launches are unaffected
  });

  it('rewrite arguments, checked like any launch', async () => {
    stream = device.createStream();
    const word = device.allocHost('u32', 1);
    using _ = store.onLaunch((context) => ({ args: [context.args[0], (context.args[1] as number) * 10] as const }));
    stream.launch(store, one, [word, 4]);
    await stream.synchronized();
    expect(word.data[0]).toBe(40);
    using __ = onLaunch(() => ({ args: [word] as never }));
    expect(() => stream.launch(store, one, [word, 4])).toThrow(TypeError);
  });

  it('replace the kernel by one of the same signature, and refuse one of another', async () => {
    const { copy, count } = await testKernels(device);
    stream = device.createStream();
    const src = device.allocHost('u32', 1);
    const dst = device.allocHost('u32', 1);
    src.data[0] = 7;
    const twin = (await testKernels(device)).module.kernel('copy_u32', ['ptr', 'ptr'], { cpu: (_, [a, b]) => void ((b as Uint32Array)[0] = (a as Uint32Array)[0]! + 1) });
    using _ = copy.onLaunch(() => ({ kernel: twin }));
    stream.launch(copy, one, [src, dst]);
    await stream.synchronized();
    expect(dst.data[0]).toBe(device.kind === 'host' ? 8 : 7); // the CPU twin adds one
    using __ = store.onLaunch(() => ({ kernel: count as never }));
    expect(() => stream.launch(store, one, [dst, 1])).toThrow(LaunchHookError);
  });

  it('restore the outer context after a launch made from inside a hook', () => {
    stream = device.createStream();
    const other = device.createStream();
    const { copy } = { copy: store };
    const word = device.allocHost('u32', 1);
    const seen: string[] = [];
    let nested = false;
    using _ = onLaunch((context) => {
      seen.push(`${context.args[1]}: ${currentLaunch().args[1]}`);
      if (!nested) {
        nested = true;
        other.launch(copy, one, [word, 2]);
        seen.push(`after: ${currentLaunch().args[1]}`);
      }
    });
    stream.launch(store, one, [word, 1]);
    expect(seen).toEqual(['1: 1', '2: 2', 'after: 1']);
    expect(() => currentLaunch()).toThrow(NoCurrentLaunchError);
    other.close();
  });

  it('work with `using`: the registration ends with the block', () => {
    stream = device.createStream();
    const word = device.allocHost('u32', 1);
    let calls = 0;
    {
      using _ = onLaunch(() => void calls++);
      stream.launch(store, one, [word, 1]);
    }
    stream.launch(store, one, [word, 2]);
    expect(calls).toBe(1);
  });

  it('reach a pipeline as a PipelineError whose cause is the LaunchHookError', async () => {
    const word = device.allocHost('u32', 1);
    const failed = lastValueFrom(
      range(0, 3).pipe(
        onStreams(device, { lanes: 1 }),
        launch(store, (w) => ({ config: one, args: [word, w.index] }), { hooks: [function third(c) { if (c.args[1] === 2) throw new Error('no'); }] }),
        completed(),
        toArray(),
      ),
    );
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).cause).toBeInstanceOf(LaunchHookError);
    expect((error as PipelineError).index).toBe(2);
  });

  it('print a launch of a million-element array and 50 arguments in under 300 characters', () => {
    stream = device.createStream();
    const big = stream.alloc('f32', 1 << 20);
    const args = [big, ...Array.from({ length: 49 }, (_, i) => i)];
    const text = String(makeLaunchContext(store as never, LaunchConfig.from({ grid: 128, block: 256 }), stream, args));
    expect(text.length).toBeLessThan(300);
    expect(text).toContain('store<<<128×1×1, 256×1×1>>>(DeviceArray<f32>[1048576], 0, 1,');
    expect(text).toContain('… 42 more');
  });
});

describeBackends('kernels specialized by their launch', (getDevice, backend) => {
  const SOURCE = String.raw`
extern "C" __global__ void fill_block(unsigned* out) {
  out[threadIdx.x] = BLOCK_THREADS * 1000 + threadIdx.x;
}`;

  it('compile each distinct set of defines once, launches waiting in their stream meanwhile, in order', async () => {
    const device = getDevice();
    using template = device.template(SOURCE, { cache: false });
    let specialized = 0;
    const fill = template.kernel('fill_block', ['ptr<u32>'], {
      specialize: async (context) => {
        specialized++;
        await new Promise((r) => setTimeout(r, 5));
        expect(currentLaunch()).toBe(context); // still this launch's context after the await
        return { BLOCK_THREADS: context.block[0] };
      },
      cpu: (config, [out]) => {
        const { BLOCK_THREADS } = currentLaunch().defines!;
        for (let t = 0; t < config.block[0]; t++) out[t] = Number(BLOCK_THREADS) * 1000 + t;
      },
    });
    const streams = [device.createStream(), device.createStream(), device.createStream()];
    const outs = streams.map((s) => s.alloc('u32', 256));
    const results = streams.map(() => device.allocHost('u32', 256));
    for (let round = 0; round < 4; round++)
      streams.forEach((s, i) => s.launch(fill, { grid: 1, block: 64 * (i + 1) }, [outs[i]!]));
    streams.forEach((s, i) => s.copy(results[i]!, outs[i]!)); // waits behind the launches
    await Promise.all(streams.map((s) => s.synchronized()));
    results.forEach((r, i) => {
      const threads = 64 * (i + 1);
      expect([r.data[0], r.data[threads - 1]]).toEqual([threads * 1000, threads * 1000 + threads - 1]);
    });
    expect(fill.specializations().map((s) => s.defines.BLOCK_THREADS).sort()).toEqual([128, 192, 64]);
    expect(specialized).toBe(12);
    streams.forEach((s) => s.close());
  });

  /**
   * fill_block of `template`, specialized by its block size after `ms`, launched on a new stream
   * with 32 threads into `out`, then copied into `result`; the stream's errors are collected.
   */
  function launchFill(template: Template, ms = 0) {
    const fill = template.kernel('fill_block', ['ptr<u32>'], {
      specialize: async (context) => {
        if (ms > 0) await new Promise((r) => setTimeout(r, ms));
        return { BLOCK_THREADS: context.block[0] };
      },
      cpu: (config, [out]) => {
        for (let t = 0; t < config.block[0]; t++) out[t] = Number(currentLaunch().defines!.BLOCK_THREADS) * 1000 + t;
      },
    });
    const s = template.device.createStream();
    const errors: unknown[] = [];
    s.on('error', (error) => errors.push(error));
    const out = s.alloc('u32', 32);
    const result = template.device.allocHost('u32', 32);
    s.launch(fill, { grid: 1, block: 32 }, [out]);
    s.copy(result, out);
    return { fill, s, errors, out, result };
  }

  it('run a launch waiting for its specialization whose arrays were closed after it, as any launch does', async () => {
    const device = getDevice();
    using template = device.template(SOURCE, { cache: false });
    const { s, errors, out, result } = launchFill(template);
    out.close(); // freed behind the launch and the copy, in stream order
    await s.synchronized();
    expect(errors).toEqual([]);
    expect([result.data[0], result.data[31]]).toEqual([32_000, 32_031]);
    s.close();
  });

  it('run a launch accepted before the template was closed, whose specialization was still being made', async () => {
    const device = getDevice();
    const template = device.template(SOURCE, { cache: false });
    const { fill, s, errors, out, result } = launchFill(template, 10);
    template.close();
    await s.synchronized();
    expect(errors).toEqual([]);
    expect([result.data[0], result.data[31]]).toEqual([32_000, 32_031]);
    expect(() => s.launch(fill, { grid: 1, block: 32 }, [out])).toThrow(TypeError); // closed: no more launches
    s.close();
  });

  it('report a specialization that does not compile on the stream, and the stream goes on', async () => {
    const device = getDevice();
    using template = device.template('extern "C" __global__ void broken(unsigned* out) { out[0] = NOT_DEFINED; }', { cache: false });
    const broken = template.kernel('broken', ['ptr<u32>'], {
      specialize: () => ({ OTHER: 1 }),
      cpu: () => {
        throw new Error('NOT_DEFINED is not defined');
      },
    });
    const s = device.createStream();
    const errors: unknown[] = [];
    s.on('error', (error) => errors.push(error));
    const word = device.allocHost('u32', 1);
    s.launch(broken, one, [s.alloc('u32', 1)]);
    s.fill(word, 3);
    await s.synchronized();
    expect(word.data[0]).toBe(3);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(backend === 'cuda' ? /NvrtcError|NOT_DEFINED/ : /NOT_DEFINED/);
    s.close();
  });

  it('go through the launch operator too, and a failed specialization reaches the pipeline as a PipelineError', async () => {
    const device = getDevice();
    using template = device.template(SOURCE, { cache: false });
    const fill = template.kernel('fill_block', ['ptr<u32>'], {
      specialize: (context) => {
        if (context.block[0] > 100) throw new RangeError('too wide');
        return { BLOCK_THREADS: context.block[0] };
      },
      cpu: (config, [out]) => {
        for (let t = 0; t < config.block[0]; t++) out[t] = Number(currentLaunch().defines!.BLOCK_THREADS) * 1000 + t;
      },
    });
    const run = (threads: number) =>
      lastValueFrom(
        range(0, 4).pipe(
          onStreams(device, { lanes: 2 }),
          launch(fill, (w) => ({ config: { grid: 1, block: threads }, args: [w.device('u32', threads, 'out')] })),
          download((w) => w.buffers.out, 'out'),
          toArray(),
        ),
      );
    const values = await run(32);
    expect(values.map((w) => [w.results.out[0], w.results.out[31]])).toEqual(values.map(() => [32_000, 32_031]));
    const error = await run(128).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).cause).toBeInstanceOf(LaunchHookError);
    expect(String((error as PipelineError).cause)).toMatch(/specializer .*too wide/);
  });
});

describeBackends('currentLaunch in a CPU implementation', (getDevice, backend) => {
  it.skipIf(backend === 'cuda')('gives the launch that the host device runs, also after an await', async () => {
    const device = getDevice();
    const module = await device.compile('extern "C" __global__ void k(unsigned* p) {}');
    const seen: unknown[] = [];
    const kernel = module.kernel('k', ['ptr<u32>'], {
      cpu: async () => {
        seen.push(currentLaunch().block[0]);
        await new Promise((r) => setTimeout(r, 1));
        seen.push(currentLaunch().kernel === kernel);
      },
    });
    const s = device.createStream();
    s.launch(kernel, { grid: 1, block: 7 }, [s.alloc('u32', 1)]);
    await s.synchronized();
    expect(seen).toEqual([7, true]);
    s.close();
  });
});
