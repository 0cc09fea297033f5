/// <reference types="jest" />
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type * as TypeScript from 'typescript';

// perf: loaded when a test asks (about 0.3 s), not by every test that imports the test kit.
const loadTs = (): typeof TypeScript => require('typescript') as typeof TypeScript;

/**
 * The repository root (this file is packages/test-kit/src/export-names.ts); a function, since
 * the bench loads the test kit as ES modules, where `__dirname` exists only inside jest.
 */
const repoRoot = (): string => join(__dirname, '..', '..', '..');

const nameOf = (line: string): string => line.slice(line.indexOf(' ') + 1);

/**
 * Every name an entry point exports, as `value <name>` or `type <name>` lines, sorted: read
 * by the TypeScript checker from the entry's source, with the repository's path aliases, so
 * type-only exports count too.
 */
export function exportNames(entryFile: string): string[] {
  const ts = loadTs();
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(repoRoot(), 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (parsed === undefined) throw new Error('export names: tsconfig.json did not parse');
  const program = ts.createProgram([entryFile], { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entryFile);
  const module = source && checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`export names: ${entryFile} is not a module`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const isValue = (target.flags & ts.SymbolFlags.Value) !== 0;
      return `${isValue ? 'value' : 'type'} ${symbol.name}`;
    })
    .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
}

/**
 * One test per entry point: its export names equal the checked-in list beside the tests
 * (`<list>`, one `value|type <name>` a line), so every export added or removed shows in review
 * as a diff of that list. `SLUICE_UPDATE_EXPORTS=1` rewrites the lists instead.
 */
export function describeExportNames(
  entries: Record<string, { entry: string; list: string }>,
): void {
  describe('export names per entry point', () => {
    for (const [name, { entry, list }] of Object.entries(entries)) {
      it(`${name} exports exactly the names of ${relative(repoRoot(), list)}`, () => {
        const actual = exportNames(entry);
        if (process.env.SLUICE_UPDATE_EXPORTS === '1' || !existsSync(list)) {
          if (process.env.CI === 'true') throw new Error(`${list} is missing`);
          writeFileSync(list, `${actual.join('\n')}\n`);
        }
        const expected = readFileSync(list, 'utf8').trim().split('\n');
        expect(actual).toEqual(expected);
      }, 60_000);
    }
  });
}

/** `packages/<pkg>/src/<file>` and `packages/<pkg>/test/exports/<listName>.txt`. */
export function entryOf(
  pkg: string,
  file: string,
  listName: string,
): { entry: string; list: string } {
  return {
    entry: join(repoRoot(), 'packages', pkg, 'src', file),
    list: join(repoRoot(), 'packages', pkg, 'test', 'exports', `${listName}.txt`),
  };
}
