// Valkey GLIDE clients (@valkey/valkey-glide 2.x) for the tests, the same way in the test
// process and in forked workers (glide-store-module.ts): a GlideClient on a standalone
// redis-server, a GlideClusterClient on a Cluster.
import { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';

export type GlideEndpoints = { cluster: false; port: number } | { cluster: true; ports: number[] };

const host = '127.0.0.1';

/**
 * A connected GLIDE client. A long request timeout (GLIDE's default is 250 ms): a slow answer
 * on a loaded machine must be the store's `timeoutMs`'s to decide, not a GLIDE timeout.
 */
export function connectGlide(endpoints: GlideEndpoints): Promise<GlideClient | GlideClusterClient> {
  return endpoints.cluster
    ? GlideClusterClient.createClient({
        addresses: endpoints.ports.map((port) => ({ host, port })),
        requestTimeout: 20_000,
      })
    : GlideClient.createClient({
        addresses: [{ host, port: endpoints.port }],
        requestTimeout: 20_000,
      });
}

/** The endpoints in the environment a worker is given (see {@link glideEnv}). */
export function glideEndpointsFromEnv(): GlideEndpoints {
  const ports = process.env.SLUICE_GLIDE_PORTS!.split(',').map(Number);
  return process.env.SLUICE_GLIDE_CLUSTER === '1'
    ? { cluster: true, ports }
    : { cluster: false, port: ports[0]! };
}

/** The environment of a worker process that connects to `endpoints`. */
export function glideEnv(endpoints: GlideEndpoints): Record<string, string> {
  return {
    SLUICE_GLIDE_PORTS: (endpoints.cluster ? endpoints.ports : [endpoints.port]).join(','),
    SLUICE_GLIDE_CLUSTER: endpoints.cluster ? '1' : '0',
  };
}
