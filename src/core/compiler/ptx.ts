// What the host device's check reads from compiled PTX: each kernel entry with the size and
// alignment of its parameters (as the driver's cuFuncGetParamInfo reports them on a GPU), and
// the names that name expressions were lowered to.

/** A kernel parameter as PTX declares it. */
export interface PtxParam {
  readonly size: number;
  readonly align: number;
}

const SCALAR_BITS = /^\.[busf](8|16|32|64)$/;

/** One `.param` declaration of an entry, e.g. `.param .align 4 .b8 k_param_0[12]` or `.param .u64 .ptr .global .align 4 k_param_1`. */
function param(declaration: string): PtxParam {
  const words = declaration.trim().split(/\s+/);
  const array = /\[(\d+)\]$/.exec(words.at(-1) ?? '');
  if (array) {
    const at = words.indexOf('.align');
    return { size: Number(array[1]), align: at >= 0 ? Number(words[at + 1]) : 1 };
  }
  // A scalar: its type's width; what follows it (`.ptr .global .align 4`) is about its pointee.
  const type = words.find((w) => SCALAR_BITS.test(w));
  const bytes = type ? Number(SCALAR_BITS.exec(type)![1]) / 8 : 0;
  return { size: bytes, align: bytes };
}

/** The kernel entries of `ptx` by name, each with its parameters in order. */
export function ptxEntries(ptx: string): Map<string, PtxParam[]> {
  const entries = new Map<string, PtxParam[]>();
  const text = ptx.replace(/\/\/[^\n]*/g, '');
  for (const [, name, params] of text.matchAll(/\.entry\s+([\w$.]+)\s*\(([^)]*)\)/g))
    if (!entries.has(name!)) entries.set(name!, params!.split(',').filter((p) => p.includes('.param')).map(param));
  // An entry without parameters may be declared `.entry name()` or with no list at all.
  for (const [, name] of text.matchAll(/\.entry\s+([\w$.]+)\s*[{;]/g)) if (!entries.has(name!)) entries.set(name!, []);
  return entries;
}

/** The prefix of the device variables that name expressions are probed through (see {@link probes}). */
const PROBE = '__rxcuda_name_expression_';

/**
 * Source lines that make the compiler instantiate each name expression and say the name it was
 * lowered to (NVRTC's name expressions, for a compiler without them): a device variable holding
 * its address, whose initializer the PTX spells with the mangled name.
 */
export function probes(expressions: readonly string[]): string {
  return expressions.map((e, i) => `\n__device__ void* ${PROBE}${i} = (void*)&${e};`).join('') + (expressions.length ? '\n' : '');
}

/** The lowered names of the probes of {@link probes} in `ptx`, in the order of the expressions. */
export function probedNames(ptx: string, count: number): (string | undefined)[] {
  const found = new Map<number, string>();
  for (const [, i, name] of ptx.matchAll(new RegExp(`\\.global\\s[^\\n]*?${PROBE}(\\d+)\\s*=\\s*(?:generic\\()?([\\w$.]+)`, 'g'))) found.set(Number(i), name!);
  return Array.from({ length: count }, (_, i) => found.get(i));
}
