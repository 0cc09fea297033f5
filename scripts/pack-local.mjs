#!/usr/bin/env node
// `pnpm pack:local`: every published @sluice package built and packed with `pnpm pack` (the
// tarballs npm would publish: `workspace:` ranges replaced, only the `files` of each
// package.json) into ./.packed/ (gitignored), then the one npm install line that installs
// them into an app. Until the packages are on the npm registry this is how to install
// sluice; the size checks (scripts/worker-size.mjs, scripts/install-size.mjs) and
// .ci/user-install measure these tarballs.
//
//   node scripts/pack-local.mjs [out dir]   default ./.packed
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The published packages (packages/* not marked private), as { dir, name }. */
export function publishedPackages() {
  return readdirSync(join(root, 'packages'))
    .map((dir) => {
      try {
        const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
        return pkg.private ? undefined : { dir, name: pkg.name };
      } catch {
        return undefined;
      }
    })
    .filter((p) => p !== undefined);
}

function run(command, args, cwd) {
  const r = spawnSync(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    process.stderr.write(r.stdout ?? '');
    throw new Error(`${command} ${args.join(' ')} failed in ${relative(root, cwd) || '.'}`);
  }
  return r.stdout;
}

function main() {
  const out = resolve(process.argv[2] ?? join(root, '.packed'));
  mkdirSync(out, { recursive: true });
  // Old tarballs out (another version's would be installed beside these); nothing else.
  for (const f of readdirSync(out)) if (/^sluice-.*\.tgz$/.test(f)) rmSync(join(out, f));
  // One build of everything in dependency order (a package's declarations read its
  // dependencies' dist), then `pnpm pack` per package without its prepack script (which
  // would build that package a second time: the same output, minutes on a busy machine).
  console.error('pack:local: building every package (pnpm build)…');
  run('pnpm', ['build'], root);
  const packages = publishedPackages();
  for (const { dir, name } of packages) {
    console.error(`pack:local: packing ${name}`);
    run(
      'pnpm',
      ['pack', '--config.ignore-scripts=true', '--pack-destination', out],
      join(root, 'packages', dir),
    );
  }
  const tarballs = readdirSync(out).filter((f) => f.endsWith('.tgz'));
  if (tarballs.length !== packages.length) {
    throw new Error(`expected ${packages.length} tarballs in ${out}, found ${tarballs.length}`);
  }
  for (const t of tarballs.sort()) {
    console.error(`pack:local: ${t} ${statSync(join(out, t)).size} B`);
  }
  console.error(
    "pack:local: from your app's folder, install them all with the line below, or only the " +
      "ones it uses (sluice-core-*.tgz and your adapter's, e.g. sluice-express-*.tgz)",
  );
  // The one line on stdout: what to run (an absolute path, to run from the app's folder).
  console.log(`npm install ${out}/sluice-*.tgz`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`pack:local: ${error.message}`);
    process.exit(1);
  }
}
