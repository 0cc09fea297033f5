// Imported first by the tests of Workers behaviour: `navigator.userAgent` set as workerd
// sets it before @sluice/core loads, so its operator entries are re-checked as on Workers
// (by the first decision after each syncMs, on the limiter's clock) instead of by a timer.
Object.defineProperty(globalThis, 'navigator', {
  value: { userAgent: 'Cloudflare-Workers' },
  configurable: true,
});
