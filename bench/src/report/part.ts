// How every measuring part ends: its section of bench/results.md (the pages' templates), the
// `overall:` line `pnpm bench` checks, and with `--json <file>` its figures.
import { writeFileSync } from 'node:fs';

/** PASS or FAIL, as every part's last line says it. */
export const overall = (failed: boolean) => (failed ? 'FAIL' : 'PASS');

/** Writes `report` as indented JSON to `file` when one is given (`--json`). */
export function writeJson(file: string | undefined, report: unknown): void {
  if (file !== undefined) writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** Prints `section` and `overall: <verdict>`, and writes `report` to `json` if set. */
export function finishPart(
  section: string,
  verdict: string,
  json: string | undefined,
  report: unknown,
): void {
  console.log(`\n${section}\n\noverall: ${verdict}`);
  writeJson(json, report);
}
