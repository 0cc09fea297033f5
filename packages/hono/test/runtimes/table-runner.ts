// Runs the shared behaviour table through @sluice/fetch and @sluice/hono on the runtime that
// executes this file (Bun or Deno), with test-kit's small runner, and prints one line
// `SLUICE-TABLE <json summary>` for the jest test that spawned it (runtimes.test.ts).
// Bundled by esbuild first: the runtimes get one file, with the workspace sources in it.
import { installGlobals, runCollected } from '../../../test-kit/src/mini-runner.js';

installGlobals();

import * as luxon from 'luxon';
import { provideLuxon } from '../../../core/src/index.js';
import { ip } from '../../../fetch/src/index.js';
import { buildFetchApp, buildOutOfReach } from '../../../fetch/test/fetch-app.js';
import { type FetchServe, fetchHarness } from '../../../test-kit/src/fetch-harness.js';
import { describeAppDataRules } from '../../../test-kit/src/http-appdata-rules.js';
import { describeHttpBehaviours } from '../../../test-kit/src/http-behaviours.js';
import { describeConfigRules } from '../../../test-kit/src/http-config-rules.js';
import { describeOpsBehaviours } from '../../../test-kit/src/http-ops-behaviours.js';
import { describeOutcomeRules } from '../../../test-kit/src/http-outcome-rules.js';
import { describePipelineRules } from '../../../test-kit/src/http-pipeline-rules.js';
import { buildHonoApp, buildHonoOutOfReach } from '../hono-app.js';

// A bundle: luxon is given to the core, as the docs say for bundled apps.
provideLuxon(luxon);

declare const Bun: {
  serve(o: object): { port: number; stop(force?: boolean): Promise<void> | void };
};
declare const Deno: {
  serve(
    o: object,
    h: (req: Request, info: unknown) => Response | Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> };
};

const runtime = typeof Bun !== 'undefined' ? 'bun' : 'deno';

const serve: FetchServe = async (app) => {
  if (runtime === 'bun') {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (req: Request, s: unknown) => app(req, s),
    });
    return {
      url: `http://127.0.0.1:${server.port}`,
      close: async () => void (await server.stop(true)),
    };
  }
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, (req, info) =>
    app(req, info),
  );
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
};

const socket = runtime === 'bun' ? ip.bun() : ip.deno();
const harnesses = [
  fetchHarness(
    `fetch on ${runtime}`,
    (spec) => buildFetchApp(spec, socket),
    serve,
    (spec, route) => buildOutOfReach(spec, route, socket),
  ),
  fetchHarness(
    `hono on ${runtime}`,
    (spec) => buildHonoApp(spec, socket),
    serve,
    (spec, route) => buildHonoOutOfReach(spec, route, socket),
  ),
];
for (const harness of harnesses) {
  describeHttpBehaviours(harness);
  describeConfigRules(harness);
  describeOpsBehaviours(harness);
  describePipelineRules(harness);
  describeAppDataRules(harness);
  describeOutcomeRules(harness);
}

const summary = await runCollected();
console.log(`SLUICE-TABLE ${JSON.stringify(summary)}`);
// Deno and Bun keep running while a server or timer is open: the summary is the result.
(globalThis as { process?: { exit(code: number): never } }).process?.exit(0);
