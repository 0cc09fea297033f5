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

/**
 * Starts workerd with one ES-module Worker (`script`, its whole bundle) on a free port,
 * with the given compatibility flags (none: no `nodejs_compat`). Resolves once it answers.
 */
export async function startWorkerd(
  script: string,
  options: { compatibilityFlags?: string[]; compatibilityDate?: string } = {},
): Promise<WorkerdProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-workerd-'));
  const port = await freePort();
  writeFileSync(join(dir, 'worker.js'), script);
  const flags = (options.compatibilityFlags ?? []).map((f) => JSON.stringify(f)).join(', ');
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "${options.compatibilityDate ?? '2025-09-01'}",
  compatibilityFlags = [${flags}],
);
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
