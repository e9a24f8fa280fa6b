// The module graph of src/, read with the TypeScript compiler's parser: every import, type
// imports, re-exports, import() calls and types, and module augmentations counted, each resolved
// to the file it names. The layout tests draw their conclusions from it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** A file of src/ (its path relative to src/, e.g. `core/api/stream.ts`) and the files it names. */
export interface ModuleFile {
  readonly path: string;
  /** The folder, relative to src/: `core/device`, `operators`, or '' for src/ itself. */
  readonly folder: string;
  readonly lines: number;
  readonly imports: readonly string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The specifiers a file names, in any position the module graph counts. */
function specifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression))
      found.push(node.moduleReference.expression.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]))
      found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      found.push(node.argument.literal.text);
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) found.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every TypeScript file under `root` (src/) with the files of the same tree that it names. */
export function moduleGraph(root: string): ModuleFile[] {
  return sourceFiles(root).map((file) => {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const imports = specifiers(source)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => relative(root, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
    const path = relative(root, file);
    return { path, folder: dirname(path) === '.' ? '' : dirname(path), lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), imports };
  });
}

/** The strongly connected components of a graph with more than one node (its circles). */
export function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return found;
}
