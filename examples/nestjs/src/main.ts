// `pnpm demo:nestjs` (Express platform) or `pnpm demo:nestjs --fastify`: a NestJS API on
// port 3300 (PORT), limited by @sluice/nestjs. Try:
//   curl -i localhost:3300/users/1        (10 a minute, then 429 with Retry-After)
//   curl -i -X POST localhost:3300/login  (3 a minute: the named limiter 'login')
//   curl -i localhost:3300/health         (never limited)
//   curl -i -H 'Authorization: Bearer alice' localhost:3300/reports/daily  (2 a minute per user)
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { appModule } from './app.module.js';

const fastify = process.argv.includes('--fastify');
const app = await NestFactory.create(
  appModule(),
  fastify ? new FastifyAdapter() : new ExpressAdapter(),
);
const port = Number(process.env.PORT ?? 3300);
await app.listen(port, '127.0.0.1');
console.log(`sluice NestJS demo (${fastify ? 'Fastify' : 'Express'}) on http://127.0.0.1:${port}`);
console.log(
  '  GET /users/:id (10/min)  POST /login (3/min)  GET /health  GET /reports/daily (2/min per user)',
);
