// docs/reference/ is the API reference that TypeDoc makes from the doc comments
// (`npm run docs:reference`, typedoc.reference.json): this test makes it again, once, into a
// scratch folder, with the same options and a JSON model beside it, and fails where the committed
// one differs, where TypeDoc warns (an export without a doc comment, a link that goes nowhere), and
// where a function or method has no `@example`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const committed = join(root, 'docs', 'reference');
const regenerate = 'run `npm run docs:reference` and commit docs/reference/';
const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
// TypeDoc and its Markdown plugin are development dependencies: a machine that runs the suite
// from built files alone may lack them, and says so.
const noTypeDoc = existsSync(typedoc) && existsSync(join(root, 'node_modules', 'typedoc-plugin-markdown'))
  ? ''
  : 'TypeDoc or typedoc-plugin-markdown is not installed here';

/** A reflection of TypeDoc's JSON model, as far as this test reads it. */
interface Reflection {
  name: string;
  kind: number;
  comment?: { blockTags?: { tag: string }[] };
  signatures?: Reflection[];
  children?: Reflection[];
  inheritedFrom?: unknown;
}
/** TypeDoc's ReflectionKind values this test names. */
const Kind = { Function: 64, Method: 2048 } as const;

const dir = mkdtempSync(join(tmpdir(), 'rxcuda-reference-'));
const made = join(dir, 'reference');
let output = '';
let status: number | null = null;

/** Every file under `folder`, as paths relative to it, sorted. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

/** The functions and methods of the model, named as `module.Class.method`, that no comment of theirs gives an example. */
function withoutExample(project: Reflection): string[] {
  const hasExample = (r: Reflection) => (r.comment?.blockTags ?? []).some((t) => t.tag === '@example');
  const missing: string[] = [];
  const walk = (r: Reflection, path: string) => {
    const name = path ? `${path}.${r.name}` : r.name;
    if ((r.kind === Kind.Function || r.kind === Kind.Method) && !r.inheritedFrom
      && !hasExample(r) && !(r.signatures ?? []).some(hasExample)) missing.push(name);
    for (const child of r.children ?? []) walk(child, name);
  };
  for (const module of project.children ?? []) walk(module, '');
  return missing;
}

beforeAll(() => {
  if (noTypeDoc) return;
  // TypeDoc sorts names by the locale's collation (Lithuanian puts y before j): one locale for all,
  // as `npm run docs:reference` sets it.
  const result = spawnSync(process.execPath, [
    typedoc, '--options', join(root, 'typedoc.reference.json'),
    '--out', made, '--json', join(dir, 'reference.json'),
  ], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', LC_ALL: 'C' } });
  output = `${result.stdout}${result.stderr}`;
  status = result.status;
}, 320_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noTypeDoc !== '')(`docs/reference${noTypeDoc ? ` (skipped: ${noTypeDoc})` : ''}`, () => {
  it('is made by TypeDoc without an error or a warning (every export documented, every link resolved)', () => {
    // eslint-disable-next-line no-control-regex
    const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
    const warnings = lines.filter((l) => /^\[(warning|error)\]/.test(l) && !/^\[\w+\] Found \d+ errors? and \d+ warnings?/.test(l));
    expect(warnings, output).toEqual([]);
    expect(status, output).toBe(0);
  });

  it('gives every function and method an @example', () => {
    expect(status, `TypeDoc failed (see the test above):\n${output}`).toBe(0);
    const project = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reflection;
    expect(project.children?.map((m) => m.name)).toEqual(['rxcuda', 'rxcuda/jetstream']);
    expect(withoutExample(project), 'these functions and methods have no @example in their doc comment').toEqual([]);
  });

  it(`is committed as the doc comments make it now (else ${regenerate})`, () => {
    expect(status, `TypeDoc failed (see the first test):\n${output}`).toBe(0);
    const files = filesUnder(made);
    expect(files.length).toBeGreaterThan(50);
    expect(filesUnder(committed), `docs/reference/ has other files than TypeDoc makes: ${regenerate}`).toEqual(files);
    const stale = files.filter((f) => readFileSync(join(made, f), 'utf8') !== readFileSync(join(committed, f), 'utf8'));
    expect(stale, `these pages of docs/reference/ differ from what the doc comments make: ${regenerate}`).toEqual([]);
  });

  it('names no folder of the machine that made it, and no date', () => {
    const leaks = filesUnder(made).filter((f) => {
      const text = readFileSync(join(made, f), 'utf8');
      return text.includes(root) || text.includes(dir) || /\b20\d\d-\d\d-\d\d\b/.test(text);
    });
    expect(leaks).toEqual([]);
  });
});
