// What `wrangler types` generates for the bindings of wrangler.toml (shortened): the
// Worker's `env`, as `import { env } from 'cloudflare:workers'` gives it.
declare module 'cloudflare:workers' {
  export const env: {
    SLUICE: import('@sluice/cloudflare').DurableObjectNamespaceLike;
    MY_RATE_LIMITER: import('@sluice/cloudflare').RateLimitBindingLike;
  };
}
