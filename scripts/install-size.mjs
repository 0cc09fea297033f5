#!/usr/bin/env node
// What `npm install` adds to an Express app: @sluice/express with its core (from the packed
// tarballs) beside express-rate-limit (from the registry). Each is installed with express@5
// into a scratch project of its own; the figure is that project's node_modules less the one
// of a project with express@5 alone (bytes of the files, as unpacked, and `du -sk`). Prints one line per
// subject and the packages sluice adds; fails when luxon (an optional peer, for calendar
// quotas) or a source map is installed.
//
//   node scripts/install-size.mjs <tarball dir> <work dir>
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bytes of every file under `dir` (symbolic links not followed) and the source maps among them. */
function bytesUnder(dir) {
  let bytes = 0;
  let maps = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        bytes += lstatSync(path).size;
        if (entry.name.endsWith('.map')) maps++;
      }
    }
  };
  walk(dir);
  return { bytes, maps };
}

/** A scratch project under `work` with `specs` installed; its node_modules' packages and size. */
function install(work, name, specs) {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `{ "name": "${name}", "version": "1.0.0", "private": true }\n`,
  );
  const r = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts', ...specs],
    { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`npm install ${specs.join(' ')} failed`);
  const modules = join(dir, 'node_modules');
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  // name@version of every installed package, wherever npm placed it.
  const packages = Object.entries(lock.packages)
    .filter(([path]) => path.startsWith('node_modules/'))
    .map(([path, meta]) => `${path.slice(path.lastIndexOf('node_modules/') + 13)}@${meta.version}`);
  const du = spawnSync('du', ['-sk', modules], { encoding: 'utf8' });
  const diskKb = Number.parseInt(du.stdout ?? '', 10);
  return { ...bytesUnder(modules), diskKb, packages };
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

function main() {
  const [tarballDir, workDir] = process.argv.slice(2).map((p) => resolve(p));
  if (!tarballDir || !workDir) throw new Error('usage: install-size.mjs <tarball dir> <work dir>');
  const tarball = (pkg) => {
    const file = readdirSync(tarballDir).find(
      (f) => f.startsWith(`sluice-${pkg}-`) && f.endsWith('.tgz'),
    );
    if (!file) throw new Error(`no sluice-${pkg}-*.tgz in ${tarballDir}`);
    return join(tarballDir, file);
  };
  const base = install(workDir, 'express-alone', ['express@5']);
  const sluice = install(workDir, 'sluice-express', [
    'express@5',
    tarball('core'),
    tarball('express'),
  ]);
  const erl = install(workDir, 'express-rate-limit', ['express@5', 'express-rate-limit']);
  const added = (subject) => subject.packages.filter((p) => !base.packages.includes(p));
  const line = (name, subject) =>
    console.log(
      `install-size: ${name}: ${mb(subject.bytes - base.bytes)} of files (${subject.bytes - base.bytes} B), ${subject.diskKb - base.diskKb} KB on disk (du -sk); adds ${added(subject).join(', ')}`,
    );
  line('@sluice/express + @sluice/core', sluice);
  line('express-rate-limit', erl);
  const problems = [];
  if (sluice.packages.some((p) => p.startsWith('luxon@')))
    problems.push('luxon is installed (it is an optional peer)');
  if (sluice.maps > base.maps)
    problems.push(`${sluice.maps - base.maps} source maps are installed`);
  for (const p of problems) console.error(`install-size: ${p}`);
  process.exit(problems.length === 0 ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`install-size: ${error.message}`);
    process.exit(1);
  }
}
