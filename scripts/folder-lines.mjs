#!/usr/bin/env node
// The lines and files of each source folder, as the Markdown table docs/architecture.md shows:
// the TypeScript folders of src/ lowest first (the order of LAYERS in test/layout/folders.test.ts),
// then the native folders of native/src/. Each folder counts its own files, not its subfolders'.
//
//   node scripts/folder-lines.mjs          prints the table
//   node scripts/folder-lines.mjs --write  puts it into docs/architecture.md, between its
//                                          <!-- folder-lines --> and <!-- /folder-lines --> marks
//   node scripts/folder-lines.mjs --check  exits 1 when docs/architecture.md's table is not this one
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = join(root, 'docs', 'architecture.md');
const START = '<!-- folder-lines -->';
const END = '<!-- /folder-lines -->';

/** The files directly in `folder` whose names end with one of `extensions`. */
function filesIn(folder, extensions) {
  return readdirSync(join(root, folder), { withFileTypes: true })
    .filter((entry) => entry.isFile() && extensions.some((e) => entry.name.endsWith(e)))
    .map((entry) => join(root, folder, entry.name));
}

/** The number of lines of a file (a last line without a newline counts). */
function linesOf(file) {
  const text = readFileSync(file, 'utf8');
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Every folder under `top` (itself included), as paths relative to the repository. */
function foldersUnder(top) {
  const found = [top];
  for (const entry of readdirSync(join(root, top), { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...foldersUnder(`${top}/${entry.name}`));
  }
  return found;
}

/** src/'s folders in the layout test's order of layers; folders it does not name come last, sorted. */
function tsFolders() {
  const test = readFileSync(join(root, 'test', 'layout', 'folders.test.ts'), 'utf8');
  const layers = [...(/const LAYERS = \[([^\]]*)\]/.exec(test)?.[1] ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]);
  const folders = foldersUnder('src');
  const rank = (folder) => {
    const i = layers.indexOf(folder === 'src' ? '' : folder.slice('src/'.length));
    return i === -1 ? layers.length : i;
  };
  return folders.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function row(folder, extensions) {
  const files = filesIn(folder, extensions);
  const lines = files.reduce((sum, file) => sum + linesOf(file), 0);
  // Thousands with a thin space, as the docs write them.
  return `| \`${folder}/\` | ${files.length} | ${lines.toLocaleString('en-US').replaceAll(',', ' ')} |`;
}

function table() {
  const native = foldersUnder('native/src').sort();
  return [
    '| folder | files | lines |',
    '|---|--:|--:|',
    ...tsFolders().map((folder) => row(folder, ['.ts'])),
    ...native.map((folder) => row(folder, ['.cpp', '.hpp', '.h', '.cu'])),
  ].join('\n');
}

const mode = process.argv[2];
if (mode === undefined) {
  console.log(table());
} else if (mode === '--write' || mode === '--check') {
  const text = readFileSync(page, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end < start) {
    console.error(`docs/architecture.md has no ${START} … ${END} marks for the table`);
    process.exit(1);
  }
  const updated = `${text.slice(0, start + START.length)}\n${table()}\n${text.slice(end)}`;
  if (mode === '--write') writeFileSync(page, updated);
  else if (updated !== text) {
    console.error('docs/architecture.md\'s line counts are not the folders\' now: run `node scripts/folder-lines.mjs --write`');
    process.exit(1);
  }
} else {
  console.error('Usage: node scripts/folder-lines.mjs [--write | --check]');
  process.exit(2);
}
