import 'reflect-metadata';
import {
  Controller,
  Get,
  HttpCode,
  type INestApplication,
  Module,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiResponse, DECORATORS, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { MemoryStore } from '@sluice/core';
import { EPOCH } from '@sluice/test-kit';
import {
  addSluiceApiResponses,
  SkipThrottle,
  SluiceGuard,
  SluiceModule,
  type SluiceModuleOptions,
  Throttle,
} from '../src/index.js';
import { API_RESPONSE_METADATA } from '../src/openapi.js';
import { type Platform, send, startNest, urlOf } from './harness.js';

type Response = {
  description: string;
  headers?: Record<string, { schema: Record<string, unknown> }>;
  content?: Record<string, { schema: { required?: string[]; properties?: object } }>;
};
type Document = { paths: Record<string, Record<string, { responses: Record<string, Response> }>> };

/** The headers every response has whatever sluice does (Express's, Fastify's, Node's). */
const PLAIN = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'x-powered-by',
  'etag',
]);
const sent = (headers: Record<string, string>) =>
  Object.keys(headers)
    .filter((h) => !PLAIN.has(h))
    .sort();
const named = (r: Response | undefined) =>
  Object.keys(r?.headers ?? {})
    .map((h) => h.toLowerCase())
    .sort();

@Controller('open')
class Open {
  @Get('limited') limited() {
    return { ok: true };
  }
}

@Controller('api')
class Api {
  @Throttle('throttle:1,1')
  @Post('own')
  own() {
    return { ok: true };
  }
  @SkipThrottle()
  @Get('free')
  free() {
    return { ok: true };
  }
  @ApiResponse({ status: 200, description: 'mine' })
  @ApiResponse({ status: 429, description: 'my 429' })
  @HttpCode(200)
  @Post('declared')
  declared() {
    return { ok: true };
  }
}

@Controller('guarded')
class Guarded {
  @UseGuards(SluiceGuard) @Get('yes') yes() {
    return 'y';
  }
  @Get('no') no() {
    return 'n';
  }
}

/** A real application with `options`, its document from @nestjs/swagger, and a client. */
async function documentOf(
  platform: Platform,
  options: SluiceModuleOptions,
  controllers: Function[] = [Api, Open, Guarded],
) {
  @Module({ imports: [SluiceModule.forRoot(options)], controllers: controllers as never[] })
  class AppModule {}
  const app: INestApplication = await startNest(platform, AppModule);
  addSluiceApiResponses(app);
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder().build(),
  ) as unknown as Document;
  const url = await urlOf(app);
  return { app, doc, request: (method: string, path: string) => send(url, method, path) };
}

const base = { limit: 'throttle:1,1', store: new MemoryStore(), clock: () => EPOCH };

it("the metadata key is @nestjs/swagger's own", () => {
  expect(API_RESPONSE_METADATA).toBe(DECORATORS.API_RESPONSE);
});

for (const platform of ['express', 'fastify'] as const) {
  describe(`addSluiceApiResponses on ${platform}: SwaggerModule.createDocument`, () => {
    let app: INestApplication | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('a limited handler documents the 429 and the headers a real denial sends', async () => {
      const started = await documentOf(platform, {
        ...base,
        store: new MemoryStore(),
        headers: ['legacy', 'draft-6'],
      });
      app = started.app;
      const responses = started.doc.paths['/open/limited']!.get!.responses;
      const denied = responses['429']!;
      expect(named(denied)).toEqual(
        [
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'x-ratelimit-reset',
          'ratelimit-policy',
          'ratelimit-limit',
          'ratelimit-remaining',
          'ratelimit-reset',
          'retry-after',
        ].sort(),
      );
      expect(named(responses['200'])).toEqual(named(denied).filter((h) => h !== 'retry-after'));
      const ok = await started.request('GET', '/open/limited');
      expect(ok.status).toBe(200);
      expect(sent(ok.headers)).toEqual(named(responses['200']));
      const no = await started.request('GET', '/open/limited');
      expect(no.status).toBe(429);
      expect(sent(no.headers)).toEqual(named(denied));
      const schema = denied.content!['application/json']!.schema;
      expect(Object.keys(no.body as object).sort()).toEqual([...schema.required!].sort());
    });

    it('@Throttle on a POST: the 201 gets the headers; @SkipThrottle: nothing; own @ApiResponse kept', async () => {
      const started = await documentOf(platform, { ...base, store: new MemoryStore() });
      app = started.app;
      const own = started.doc.paths['/api/own']!.post!.responses;
      expect(Object.keys(own).sort()).toEqual(['201', '429']);
      expect(named(own['201'])).toEqual([
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ]);
      const free = started.doc.paths['/api/free']!.get!.responses;
      expect(Object.keys(free)).toEqual(['200']);
      expect(free['200']!.headers).toBeUndefined();
      expect(sent((await started.request('GET', '/api/free')).headers)).toEqual([]);
      const declared = started.doc.paths['/api/declared']!.post!.responses;
      expect(declared['429']!.description).toBe('my 429');
      expect(declared['200']!.description).toBe('mine');
      expect(named(declared['200'])).toEqual(named(own['201']));
    });

    it("global: false: only handlers under @UseGuards(SluiceGuard); a second call restarts from the handler's own", async () => {
      const started = await documentOf(
        platform,
        {
          ...base,
          store: new MemoryStore(),
          global: false,
          headers: 'draft-8',
          body: 'problem',
        },
        [Open, Guarded],
      );
      app = started.app;
      const paths = started.doc.paths;
      expect(paths['/guarded/no']!.get!.responses['429']).toBeUndefined();
      const yes = paths['/guarded/yes']!.get!.responses['429']!;
      expect(Object.keys(yes.content!)).toEqual(['application/problem+json']);
      expect(named(yes)).toEqual(['ratelimit', 'ratelimit-policy', 'retry-after']);
      await started.request('GET', '/guarded/yes');
      const no = await started.request('GET', '/guarded/yes');
      expect([no.status, sent(no.headers)]).toEqual([429, named(yes)]);
      // An earlier application's legacy headers are gone: the handler's own responses were the start.
      const limited = paths['/open/limited']!.get!.responses;
      expect([Object.keys(limited), limited['200']!.headers]).toEqual([['200'], undefined]);
    });
  });
}
