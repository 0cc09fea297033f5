// The LiteLLM cases on the memory store (the quick tier); litellm-redis.test.ts runs them on Redis.
import { MemoryStore } from '@sluice/core';
import { describeLiteLLMCases } from './litellm-cases.js';

let n = 0;
describeLiteLLMCases('the memory store', {
  store: () => new MemoryStore(),
  prefix: () => `ai${n++}`,
});
