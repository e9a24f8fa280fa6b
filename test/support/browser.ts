// A real browser for the tests of the HTML pages rxcuda writes: Debian's chromium (or
// RXCUDA_CHROMIUM), headless, driven by playwright-core. Tests that need it describe themselves
// with describeWithTool('chromium', …) (support/tools.ts): they skip without it, saying how to
// install it, except where CI expects it.
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { toolPath } from './tools.js';

// As root and offline: no sandbox, no GPU, and none of Chromium's own connections (refused here).
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Starts headless Chromium, or throws an error that says how to install it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = toolPath('chromium');
  // Without a sanitizer runtime preloaded into this process (scripts/asan.sh): Chromium is not
  // rxcuda's to check, and hangs under it.
  const { LD_PRELOAD: _preloaded, ...env } = process.env;
  return chromium.launch({ executablePath, headless: true, args: FLAGS, env });
}

/** What loading a page showed: its console's errors and uncaught exceptions, and every URL it asked for. */
export interface Loaded {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
}

/** Opens the file at `path` in a new page of `browser`, waiting until `ready` (a selector) is there. */
export async function openFile(browser: Browser, path: string, ready: string, viewport = { width: 1200, height: 800 }): Promise<Loaded> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('request', (request) => void requests.push(request.url()));
  await page.goto(pathToFileURL(path).href);
  await page.waitForSelector(ready, { timeout: 10_000 });
  return { page, errors, requests };
}
