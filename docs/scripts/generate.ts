/**
 * What `pnpm docs:build` and `pnpm docs:dev` generate before VitePress runs (none of it is
 * committed, so none of it can drift):
 * - public/plots/*.svg: the algorithm plots, decided by the real core (plots.ts), and the
 *   client's pacing plot from the committed real run docs/data/pace-run.json (pace-plot.ts);
 *   prefetch plot, from a real run's data/prefetch-timeline.json (prefetch-plot.ts);
 * - reference/api/*.md: the options reference, from the packages' TSDoc (reference.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOverloadPlots, writeOverloadRunPlot } from './overload-plot.js';
import { writePacePlot } from './pace-plot.js';
import { writePlots } from './plots.js';
import { writePrefetchPlot } from './prefetch-plot.js';
import { OUT_DIR, writeReference } from './reference.js';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const plots = [
  ...(await writePlots(path.join(docs, 'public', 'plots'))),
  ...(await writePacePlot(
    path.join(docs, 'data', 'pace-run.json'),
    path.join(docs, 'public', 'plots'),
  )),
  ...(await writePrefetchPlot(
    path.join(docs, 'public', 'plots'),
    path.join(docs, 'data', 'prefetch-timeline.json'),
  )),
  ...(await writeOverloadPlots(
    path.join(docs, 'public', 'plots'),
    path.join(docs, 'data', 'overload-simulation.json'),
  )),
  ...(await writeOverloadRunPlot(
    path.join(docs, 'public', 'plots'),
    path.join(docs, 'data', 'overload-run.json'),
  )),
];
console.log(`docs: ${plots.length} plots in public/plots`);
await writeReference();
console.log(`docs: options reference in ${path.relative(docs, OUT_DIR)}`);
console.log(`docs: generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
