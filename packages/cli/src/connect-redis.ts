// The Redis side of `sluice`: an ioredis client (or Cluster) that fails fast, loaded only
// when the command speaks to Redis.
import { Cluster, Redis } from 'ioredis';
import { StoreUnreachableError } from './unreachable.js';

/**
 * An ioredis client on `url` (one node of a Cluster when `isCluster`), connected, that fails
 * fast: no retry, no offline queue, `timeoutMs` to connect. Rejects with a
 * {@link StoreUnreachableError} (without the URL in the message) when the server cannot be
 * reached.
 */
export async function connectRedis(
  url: string,
  isCluster: boolean,
  timeoutMs: number,
): Promise<Redis | Cluster> {
  const options = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
  const client = isCluster ? cluster(url, options) : new Redis(url, options);
  // The cause of a failed connect comes as an 'error' event (its rejection only says
  // "Connection is closed"); with no listener it would be logged.
  let cause: (Error & { code?: string }) | undefined;
  client.on('error', (error: Error) => {
    cause = error;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = cause ?? (error as Error & { code?: string });
    throw new StoreUnreachableError(`cannot connect: ${reason.code ?? reason.message}`);
  }
  return client;
}

/**
 * A Cluster client from one node's URL: the node as the startup node, the URL's user name,
 * password and TLS (`rediss:`) for every node.
 */
function cluster(url: string, options: Record<string, unknown>): Cluster {
  const u = new URL(url);
  const decoded = (text: string) => (text === '' ? undefined : decodeURIComponent(text));
  return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
    lazyConnect: true,
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    redisOptions: {
      ...options,
      username: decoded(u.username),
      password: decoded(u.password),
      tls: u.protocol === 'rediss:' ? {} : undefined,
    },
  });
}
