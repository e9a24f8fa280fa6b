// The public API as its declarations give it, read with the TypeScript compiler from the exports
// of the package (rxcuda, rxcuda/jetstream, and the CLI's programmatic entry points): every entry
// point that takes an options object, with the options it declares (module augmentations
// included), and every exported class, with whether its constructor is public.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The files whose exports are the public API, by the name the entry points are prefixed with. */
export const ENTRY_FILES: Readonly<Record<string, string>> = {
  rxcuda: 'src/index.ts',
  'rxcuda/jetstream': 'src/operators/jetstream/index.ts',
  'cli/info': 'src/cli/info.ts',
  'cli/demo': 'src/cli/demo.ts',
};

/** One parameter of an entry point that takes an options object. */
export interface OptionsParameter {
  /** `rxcuda: Device#createStream`, `rxcuda: LaunchConfig.constructor`, `rxcuda: onStreams`… */
  readonly id: string;
  /** The parameter's name and position. */
  readonly parameter: string;
  readonly index: number;
  /** Where in the parameter these options are: '' for the parameter itself, `deadLetter` for `options.deadLetter`. */
  readonly path: string;
  /** The options the parameter's type declares (across the members of a union). */
  readonly keys: readonly string[];
}

/** Whether a declaration is rxcuda's own (not lib.d.ts's typed arrays, nor Node's types). */
function ours(declaration: ts.Declaration | undefined): boolean {
  return declaration !== undefined && declaration.getSourceFile().fileName.startsWith(join(root, 'src'));
}

/**
 * The members of a type that are options objects: interfaces or object literal types of rxcuda's
 * own (or intersections of them), not classes, functions or arrays, with properties of their own.
 */
function optionsMembers(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  const members = type.isUnion() ? type.types : [type];
  return members.filter((member) => {
    if (member.isIntersection()) return member.types.some((t) => optionsMembers(checker, t).length > 0);
    if (!(member.flags & ts.TypeFlags.Object)) return false;
    if (checker.isArrayType(member) || checker.isTupleType(member)) return false;
    if (member.getCallSignatures().length > 0 || member.getConstructSignatures().length > 0) return false;
    const declaration = (member.aliasSymbol ?? member.getSymbol())?.declarations?.[0];
    if (!ours(declaration) || ts.isClassDeclaration(declaration!)) return false;
    // An object of methods alone (`{ drain(): Promise<void> }`) is a service the call uses, not options.
    const own = member.getProperties().filter((p) => ours(p.declarations?.[0]));
    return own.length > 0 && !own.every((p) => p.flags & ts.SymbolFlags.Method);
  });
}

/** The options `type` declares, and, by `path`, those of options objects among them (`deadLetter`). */
function optionsOf(checker: ts.TypeChecker, at: ts.Node, type: ts.Type, path: string, out: Map<string, readonly string[]>): void {
  const members = optionsMembers(checker, checker.getNonNullableType(type));
  if (members.length === 0) return;
  const properties = members.flatMap((m) => m.getProperties()).filter((p) => ours(p.declarations?.[0]));
  out.set(path, [...new Set(properties.map((p) => p.name))].sort());
  for (const property of properties) optionsOf(checker, at, checker.getTypeOfSymbolAtLocation(property, at), path ? `${path}.${property.name}` : property.name, out);
}

function parametersOf(checker: ts.TypeChecker, id: string, signature: ts.Signature, found: Map<string, OptionsParameter>): void {
  signature.getParameters().forEach((parameter, index) => {
    const declaration = parameter.valueDeclaration;
    if (!declaration) return;
    const nested = new Map<string, readonly string[]>();
    optionsOf(checker, declaration, checker.getTypeOfSymbolAtLocation(parameter, declaration), '', nested);
    for (const [path, keys] of nested) {
      // Overloads add their options to those of the signatures before them.
      const key = `${id}(${index})${path}`;
      const merged = [...new Set([...(found.get(key)?.keys ?? []), ...keys])].sort();
      found.set(key, { id, parameter: parameter.name, index, path, keys: merged });
    }
  });
}

/** Whether a member is public API: not private, protected, #private or @internal. */
function isPublic(symbol: ts.Symbol): boolean {
  if (symbol.name.startsWith('#') || symbol.name.startsWith('__')) return false;
  return publicDeclarations(symbol.declarations ?? []);
}

function publicDeclarations(declarations: readonly ts.Declaration[]): boolean {
  return declarations.every((d) => {
    const flags = ts.getCombinedModifierFlags(d as ts.Declaration);
    if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return false;
    return !ts.getJSDocTags(d).some((tag) => tag.tagName.text === 'internal');
  });
}

let program: ts.Program | undefined;

/** The program of the entry files, made once. */
function entryProgram(): ts.Program {
  const files = Object.values(ENTRY_FILES).map((f) => join(root, f));
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  return (program ??= ts.createProgram(files, { ...config!.options, noEmit: true }));
}

/** Each exported value of the entry files: the entry's prefix, the name it is exported by, its symbol. */
function* exportedValues(checker: ts.TypeChecker): Generator<{ prefix: string; name: string; symbol: ts.Symbol; declaration: ts.Declaration }> {
  for (const [prefix, file] of Object.entries(ENTRY_FILES)) {
    const source = entryProgram().getSourceFile(join(root, file))!;
    for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (symbol.valueDeclaration) yield { prefix, name: exported.name, symbol, declaration: symbol.valueDeclaration }; // not a type alone
    }
  }
}

/** An exported class, and whether its constructor is public in the declarations. */
export interface ExportedClass {
  /** The entry it is exported from (`rxcuda`, `rxcuda/jetstream`…) and its name there. */
  readonly entry: string;
  readonly name: string;
  readonly publicConstructor: boolean;
}

/** Every exported class of the public API (the CLI's modules export none). */
export function exportedClasses(): ExportedClass[] {
  const checker = entryProgram().getTypeChecker();
  const found: ExportedClass[] = [];
  for (const { prefix, name, symbol } of exportedValues(checker)) {
    if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
    // The class or the nearest base class that declares a constructor decides (none: public).
    let declaration = symbol.declarations?.find(ts.isClassDeclaration);
    let constructors: ts.ConstructorDeclaration[] = [];
    while (declaration) {
      constructors = declaration.members.filter(ts.isConstructorDeclaration);
      if (constructors.length > 0) break;
      const base = declaration.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
      const baseSymbol = base && checker.getSymbolAtLocation(base.expression);
      const resolved = baseSymbol && baseSymbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(baseSymbol) : baseSymbol;
      declaration = resolved?.declarations?.find(ts.isClassDeclaration);
      if (!declaration || !ours(declaration)) break;
    }
    found.push({ entry: prefix, name, publicConstructor: constructors.length === 0 || publicDeclarations(constructors) });
  }
  return found;
}

/** Every options parameter of the public API, sorted by id. */
export function optionsParameters(): OptionsParameter[] {
  const checker = entryProgram().getTypeChecker();
  const found = new Map<string, OptionsParameter>();
  for (const { prefix, name: exportedName, symbol, declaration } of exportedValues(checker)) {
    const name = `${prefix}: ${exportedName}`;
    if (symbol.flags & ts.SymbolFlags.Function) {
      for (const signature of checker.getTypeOfSymbolAtLocation(symbol, declaration).getCallSignatures()) parametersOf(checker, name, signature, found);
    }
    if (symbol.flags & ts.SymbolFlags.Class) {
      const classType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
      const ctor = (symbol.declarations ?? []).flatMap((d) => (ts.isClassDeclaration(d) ? d.members.filter(ts.isConstructorDeclaration) : []));
      if (publicDeclarations(ctor))
        for (const signature of classType.getConstructSignatures()) parametersOf(checker, `${name}.constructor`, signature, found);
      for (const member of classType.getProperties()) {
        if (!isPublic(member) || member.name === 'prototype') continue;
        const type = checker.getTypeOfSymbolAtLocation(member, declaration);
        for (const signature of type.getCallSignatures()) parametersOf(checker, `${name}.${member.name}`, signature, found);
      }
      const instance = checker.getDeclaredTypeOfSymbol(symbol);
      for (const member of instance.getProperties()) {
        if (!isPublic(member) || !member.declarations?.length) continue;
        const type = checker.getTypeOfSymbolAtLocation(member, member.declarations[0]!);
        for (const signature of type.getCallSignatures()) parametersOf(checker, `${name}#${member.name}`, signature, found);
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.index - b.index || (a.path < b.path ? -1 : 1)));
}


/**
 * Every callable of the public API, by id: `rxcuda: upload` (a function), `rxcuda: Stream#launch`
 * (a public method), `rxcuda: Blas.for` (a static one),
 * `rxcuda: LanePool.constructor` (a public constructor).
 */
export function publicCallables(): Set<string> {
  const checker = entryProgram().getTypeChecker();
  const found = new Set<string>();
  const classes = exportedClasses();
  for (const { prefix, name, symbol, declaration } of exportedValues(checker)) {
    if (symbol.flags & ts.SymbolFlags.Function) found.add(`${prefix}: ${name}`);
    if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
    if (classes.find((c) => c.entry === prefix && c.name === name)?.publicConstructor) found.add(`${prefix}: ${name}.constructor`);
    const classType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    for (const member of classType.getProperties())
      if (isPublic(member) && member.name !== 'prototype' && checker.getTypeOfSymbolAtLocation(member, declaration).getCallSignatures().length > 0) found.add(`${prefix}: ${name}.${member.name}`);
    for (const member of checker.getDeclaredTypeOfSymbol(symbol).getProperties()) {
      if (!isPublic(member) || !member.declarations?.length) continue;
      if (checker.getTypeOfSymbolAtLocation(member, member.declarations[0]!).getCallSignatures().length > 0) found.add(`${prefix}: ${name}#${member.name}`);
    }
  }
  return found;
}
