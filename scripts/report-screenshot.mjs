// The timeline guide's picture (docs/timeline.md) of `rxcuda demo --report`: runs the demo on the pageable road (so that the
// staging copies show) into a scratch folder, opens the page in headless Chromium and saves the
// lanes and the stage table as a PNG. Needs Debian's chromium (apt-get install -y chromium).
// Run after a build: node scripts/report-screenshot.mjs [docs/timeline-report.png]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(root, 'docs', 'timeline-report.png');
const folder = mkdtempSync(join(tmpdir(), 'rxcuda-screenshot-'));
const report = join(folder, 'report.html');
try {
  execFileSync(process.execPath, [join(root, 'dist/src/cli/main.js'), 'demo', '--frames', '24', '--pixels', String(1 << 17), '--lanes', '3',
    '--road', 'pageable', '--no-progress', '--trace', join(folder, 'trace.json'), '--report', report], { stdio: 'inherit' });
  const browser = await chromium.launch({
    executablePath: process.env.RXCUDA_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(report).href);
  await page.waitForSelector('body[data-ready=true]');
  await page.locator('.bar[data-value="9"][data-stage="invert"]').click(); // follow one frame
  const top = await page.locator('header').boundingBox();
  const bottom = await page.locator('#stages table').boundingBox();
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1000, height: Math.ceil(bottom.y + bottom.height + 12 - Math.min(0, top.y)) } });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
