import { Controller, Get, Module, Post, Req } from '@nestjs/common';
import { type Decision, SkipThrottle, SluiceModule, Throttle } from '@sluice/nestjs';

@Controller()
export class AppController {
  @Get()
  hello() {
    return { hello: 'world' };
  }

  // POST /login: 5 per minute per client on top of the global limit. The 6th quick
  // attempt gets a 429.
  @Throttle('throttle:5,1')
  @Post('login')
  login(@Req() req: { rateLimit?: Decision }) {
    return { ok: true, remaining: req.rateLimit?.remaining };
  }

  // Exempt from the global limit (a @Throttle on it would still apply).
  @SkipThrottle()
  @Get('health')
  health() {
    return 'ok';
  }
}

@Module({
  // Every route: 60 per minute per client (req.user?.id when there is one, else req.ip),
  // one bucket across all routes. SluiceGuard is registered as a global guard.
  imports: [SluiceModule.forRoot({ limit: 'throttle:60,1' })],
  controllers: [AppController],
})
export class AppModule {}
