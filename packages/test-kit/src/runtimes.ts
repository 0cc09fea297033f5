import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './redis-server.js';

/**
 * The JavaScript runtimes the fetch-standard adapters are tested on, from npm (test-kit's
 * devDependencies `bun`, `deno`, `workerd`): each wrapper package lists its binary as an
 * optional dependency per platform, which is what this finds (their postinstall scripts,
 * which only link that binary, are not run: root package.json `ignoredBuiltDependencies`).
 */
export type Runtime = 'bun' | 'deno' | 'workerd';

const platformPackages: Record<Runtime, Record<string, string>> = {
  bun: {
    'linux-x64': '@oven/bun-linux-x64/bin/bun',
    'linux-arm64': '@oven/bun-linux-aarch64/bin/bun',
  },
  deno: {
    'linux-x64': '@deno/linux-x64-glibc/deno',
    'linux-arm64': '@deno/linux-arm64-glibc/deno',
  },
  workerd: {
    'linux-x64': '@cloudflare/workerd-linux-64/bin/workerd',
    'linux-arm64': '@cloudflare/workerd-linux-arm64/bin/workerd',
  },
};

/** The path of `runtime`'s binary for this platform, from its npm package. */
export function runtimeBinary(runtime: Runtime): string {
  const file = platformPackages[runtime][`${process.platform}-${process.arch}`];
  if (file === undefined)
    throw new Error(`no ${runtime} binary for ${process.platform}-${process.arch}`);
  const wrapper = createRequire(__filename).resolve(`${runtime}/package.json`);
  const [scope, name, ...rest] = file.split('/');
  const pkg = createRequire(wrapper).resolve(`${scope}/${name}/package.json`);
  return join(dirname(pkg), ...rest);
}

/** A workerd process serving one Worker on 127.0.0.1. */
export interface WorkerdProcess {
  url: string;
  /** What workerd printed (stderr and stdout), for failures. */
  output(): string;
  stop(): Promise<void>;
}

/** Options of {@link startWorkerd}. */
export interface WorkerdOptions {
  /** Compatibility flags (default none: no `nodejs_compat`). */
  compatibilityFlags?: string[];
  compatibilityDate?: string;
  /**
   * Durable Object namespaces, binding name → the class the script exports (e.g.
   * `{ SLUICE: 'SluiceDurableObject' }`): bound in `env`, their storage in memory (gone when
   * workerd stops).
   */
  durableObjects?: Record<string, string>;
  /**
   * The networks the Worker's `fetch` may reach (workerd's `allow` list): default workerd's
   * own (public addresses only). `['public', 'local']` lets it reach a server of the test
   * on 127.0.0.1 (the Upstash REST bridge).
   */
  network?: string[];
}

/**
 * Starts workerd with one ES-module Worker (`script`, its whole bundle) on a free port,
 * with the given compatibility flags (none: no `nodejs_compat`) and Durable Object
 * namespaces. Resolves once it answers.
 */
export async function startWorkerd(
  script: string,
  options: WorkerdOptions = {},
): Promise<WorkerdProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-workerd-'));
  const port = await freePort();
  writeFileSync(join(dir, 'worker.js'), script);
  const flags = (options.compatibilityFlags ?? []).map((f) => JSON.stringify(f)).join(', ');
  const network = options.network?.map((n) => JSON.stringify(n)).join(', ');
  const outbound =
    network === undefined ? '' : `,\n    (name = "net", network = (allow = [${network}]))`;
  const objects = Object.entries(options.durableObjects ?? {});
  const bindings = objects
    .map(
      ([name, cls]) =>
        `(name = ${JSON.stringify(name)}, durableObjectNamespace = ${JSON.stringify(cls)})`,
    )
    .join(', ');
  const namespaces = objects
    .map(
      ([, cls]) =>
        `(className = ${JSON.stringify(cls)}, uniqueKey = ${JSON.stringify(`sluice-test-${cls}`)})`,
    )
    .join(', ');
  const durable =
    objects.length === 0
      ? ''
      : `  bindings = [${bindings}],
  durableObjectNamespaces = [${namespaces}],
  durableObjectStorage = (inMemory = void),
`;
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker)${outbound} ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "${options.compatibilityDate ?? '2025-09-01'}",
  compatibilityFlags = [${flags}],${network === undefined ? '' : '\n  globalOutbound = "net",'}
${durable});
`,
  );
  const child: ChildProcess = spawn(
    runtimeBinary('workerd'),
    ['serve', join(dir, 'config.capnp')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) break;
    try {
      await fetch(`${url}/__ready`);
      return { url, output: () => output, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await stop();
  throw new Error(`workerd did not start: ${output}`);
}
