import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { MemoryStore } from '@sluice/core';
import { EPOCH } from '@sluice/test-kit';
import { AppModule } from '../../../docs/snippets/nestjs/app.module.js';
import { appModule } from '../../../examples/nestjs/src/app.module.js';
import { type Platform, send, startNest, urlOf } from './harness.js';

// What the getting-started page and the demo app recommend, run as they are written.
for (const platform of ['express', 'fastify'] as const satisfies Platform[]) {
  describe(`docs and example on ${platform}`, () => {
    let app: INestApplication | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('getting started: 5 quick POST /login, the 6th is a 429 with Retry-After 12; /health is exempt', async () => {
      app = await startNest(platform, AppModule);
      const url = await urlOf(app);
      const home = await send(url, 'GET', '/');
      expect([home.status, home.headers['x-ratelimit-limit']]).toEqual([200, '60']);
      const statuses: number[] = [];
      let last = home;
      for (let i = 0; i < 6; i++) {
        last = await send(url, 'POST', '/login');
        statuses.push(last.status);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
      expect(last.headers['retry-after']).toBe('12');
      expect(last.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Rate limit exceeded, retry in 12 seconds',
      });
      const health = await send(url, 'GET', '/health');
      expect([health.status, health.headers['x-ratelimit-limit']]).toEqual([200, undefined]);
    });

    it('the demo: reports are 2 a minute per user, after its auth guard; probes are exempt', async () => {
      app = await startNest(platform, appModule({ store: new MemoryStore(), clock: () => EPOCH }));
      const url = await urlOf(app);
      const alice = { authorization: 'Bearer alice' };
      const seen: number[] = [];
      for (let i = 0; i < 3; i++)
        seen.push((await send(url, 'GET', '/reports/daily', alice)).status);
      expect(seen).toEqual([200, 200, 429]);
      const bob = await send(url, 'GET', '/reports/daily', { authorization: 'Bearer bob' });
      expect(bob.body).toEqual({ user: 'bob', remaining: 1 });
      for (let i = 0; i < 12; i++) expect((await send(url, 'GET', '/health')).status).toBe(200);
      const users: number[] = [];
      for (let i = 0; i < 11; i++) users.push((await send(url, 'GET', `/users/${i}`)).status);
      expect(users.slice(9)).toEqual([200, 429]);
    });
  });
}
