// Runs one test-kit Redis fixture in a process of its own, so that the test can give it a
// PATH without a binary (jest's process.env is the sandbox's; a spawn reads the real one).
// Prints "started" or "error: <message>".
import { startRedis, startSentinel } from '../../packages/test-kit/src/redis-server.js';

(async () => {
  try {
    const started = process.argv[2] === 'sentinel' ? await startSentinel() : await startRedis();
    await started.stop();
    console.log('started');
  } catch (error) {
    console.log(`error: ${(error as Error).message}`);
  }
})();
