// Counts the members marked `@internal` on the classes the package exports (the entry points in
// package.json's "exports", less `rxcuda/internal`), class by class, and the `@internal` lines in
// src/ overall. `--json` prints the counts as JSON.
import { readFileSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const entries = ['src/index.ts', 'src/operators/jetstream/index.ts'];
const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const program = ts.createProgram(entries, config.options);
const checker = program.getTypeChecker();

const isInternal = (node) => ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
const perClass = new Map();
for (const entry of entries) {
  const file = program.getSourceFile(entry);
  if (!file) continue;
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(file))) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    for (const declaration of target.declarations ?? []) {
      if (!ts.isClassDeclaration(declaration)) continue;
      const marked = declaration.members.filter(isInternal).length;
      if (marked > 0) perClass.set(symbol.name, marked);
    }
  }
}

const lines = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? lines(join(dir, e.name)) : e.name.endsWith('.ts') ? readFileSync(join(dir, e.name), 'utf8').split('\n').filter((l) => l.includes('@internal')) : []);
const total = [...perClass.values()].reduce((a, b) => a + b, 0);
const counts = { onPublicClasses: total, linesInSrc: lines('src').length, perClass: Object.fromEntries([...perClass].sort((a, b) => b[1] - a[1])) };
if (process.argv.includes('--json')) console.log(JSON.stringify(counts, null, 2));
else {
  console.log(`@internal members on exported classes: ${counts.onPublicClasses}; @internal lines in src: ${counts.linesInSrc}`);
  for (const [name, n] of Object.entries(counts.perClass)) console.log(`  ${name.padEnd(24)} ${n}`);
}
