/**
 * What every measuring part ends with: the `overall:` line (`pnpm bench` checks a part printed
 * it) and, with `--json <file>`, the part's report as JSON for the pages (one format for all).
 */
import { writeFileSync } from 'node:fs';

/** PASS or FAIL, as every part's report and last line say it. */
export const overall = (failed: boolean): 'PASS' | 'FAIL' => (failed ? 'FAIL' : 'PASS');

/** Writes `report` as indented JSON to `file` when one is given (`--json`). */
export function writeJson(file: string | undefined, report: unknown): void {
  if (file !== undefined) writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** Prints `overall: PASS|FAIL`, records it in `report` and writes `report` to `json` if set. */
export function finishPart(
  report: { overall: string },
  failed: boolean,
  json: string | undefined,
): void {
  console.log(`\noverall: ${overall(failed)}`);
  report.overall = overall(failed);
  writeJson(json, report);
}
