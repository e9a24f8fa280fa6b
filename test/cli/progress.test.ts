// The demo's progress bar on a real terminal (a pseudo-terminal from util-linux `script`): drawn
// on stderr where stderr is a terminal, and the terminal given back on Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliPath } from '../support/cli.js';

const SHOW_CURSOR = '\x1b[?25h';
const HIDE_CURSOR = '\x1b[?25l';
const WRAP_ON = '\x1b[?7h';
const WRAP_OFF = '\x1b[?7l';
const BAR = / \d+\/\d+ frames \| /;

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** Runs a shell command on a pseudo-terminal; calls `onOutput` with all output so far, as it comes. */
function onTerminal(command: string, onOutput: (output: string, terminal: { type(keys: string): void }) => void = () => {}): Promise<{ code: number | null; output: string }> {
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], { stdio: 'pipe' });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    onOutput(output, { type: (keys) => child.stdin.write(keys) });
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

const demo = (args: string) => `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} demo --pixels 1024 --trace /dev/null ${args}`;

describe.skipIf(!hasScript)(`rxcuda demo on a terminal${hasScript ? '' : ' (skipped: util-linux `script` is not installed)'}`, () => {
  it('shows the cursor and turns line wrap back on when Ctrl-C stops it', async () => {
    let typed = false;
    const { code, output } = await onTerminal(demo('--frames 100000'), (out, terminal) => {
      if (!typed && BAR.test(out)) {
        typed = true;
        terminal.type('\x03');
      }
    });
    expect(typed).toBe(true);
    expect(code).toBe(130);
    const afterBar = output.slice(output.lastIndexOf(HIDE_CURSOR));
    expect(afterBar).toContain(SHOW_CURSOR);
    expect(afterBar.lastIndexOf(WRAP_ON)).toBeGreaterThan(afterBar.lastIndexOf(WRAP_OFF));
  });

  it('draws the bar where stderr is a terminal, though stdout is not', async () => {
    const { code, output } = await onTerminal(`${demo('--frames 20')} | cat`);
    expect(code).toBe(0);
    expect(output).toMatch(BAR);
    expect(output.lastIndexOf(SHOW_CURSOR)).toBeGreaterThan(output.lastIndexOf(HIDE_CURSOR));
  });

  it('draws no bar where stderr is not a terminal, though stdout is', async () => {
    const { code, output } = await onTerminal(`${demo('--frames 20')} 2>/dev/null`);
    expect(code).toBe(0);
    expect(output).toMatch(/^20 frames in /m);
    expect(output).not.toMatch(BAR);
    expect(output).not.toContain(HIDE_CURSOR);
  });

  it('draws no bar with --no-progress', async () => {
    const { output } = await onTerminal(demo('--frames 20 --no-progress'));
    expect(output).not.toMatch(BAR);
  });
});
