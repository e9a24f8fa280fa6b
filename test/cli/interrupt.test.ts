// The command line's Ctrl-C, in a child process sent SIGINT: the first asks the run to wind down
// and the process goes on; a second gives up at once, with exit code 130.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const interrupt = fileURLToPath(new URL('../../dist/src/cli/interrupt.js', import.meta.url));
const PROGRAM = `
import { onInterrupt } from ${JSON.stringify(interrupt)};
const interrupt = onInterrupt(() => console.log('winding down'), () => console.log('abandoned'));
setInterval(() => {}, 1000);
console.log('ready', interrupt.interrupted);
process.stdin.on('data', () => console.log('still here', interrupt.interrupted));
`;

describe('onInterrupt', () => {
  it('winds down on the first SIGINT, and ends the process with 130 on the second', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', PROGRAM], { stdio: 'pipe' });
    let output = '';
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const look = () => (output.includes(text) ? resolve() : setTimeout(look, 20));
        look();
      });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await seen('ready false');
    child.kill('SIGINT');
    await seen('winding down');
    child.stdin.write('?\n');
    await seen('still here true'); // the first Ctrl-C did not end it
    child.kill('SIGINT');
    expect(await exit).toBe(130);
    expect(output).toContain('abandoned');
  });
});
