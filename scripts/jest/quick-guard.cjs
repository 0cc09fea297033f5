// The quick tier's rule, enforced (jest setupFiles of `pnpm test:quick`, jest.quick.config.ts):
// no child process, no Redis and no PostgreSQL. A test that starts one fails here with the
// way out, instead of making the inner loop slow or dependent on the machine: list its file
// in FULL_ONLY (scripts/jest/tiers.ts) with the reason.
const childProcess = require('node:child_process');
const net = require('node:net');

const refuse = (what) => () => {
  throw new Error(
    `pnpm test:quick starts no ${what}: this test belongs to the full suite only ` +
      '(add its file to FULL_ONLY in scripts/jest/tiers.ts, with the reason)',
  );
};
for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']) {
  childProcess[name] = refuse('child process');
}

// The servers this machine runs for the full suite: Redis on 6379, PostgreSQL on 5432.
const SERVER_PORTS = new Set([6379, 5432]);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = args[0];
  const port = typeof first === 'object' && first !== null ? first.port : first;
  if (SERVER_PORTS.has(Number(port))) refuse(Number(port) === 5432 ? 'PostgreSQL' : 'Redis')();
  return connect.apply(this, args);
};
