import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  Param,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import {
  type Decision,
  Limit,
  SkipThrottle,
  SluiceGuard,
  SluiceModule,
  type SluiceModuleOptions,
  Throttle,
  throttles,
} from '@sluice/nestjs';

// A named limiter, as Laravel's RateLimiter::for: 3 logins a minute per client address.
throttles.define('login', (req) => Limit.perMinute(3).by(req.ip));

interface DemoRequest {
  rateLimit?: Decision;
  user?: { id: string };
  headers: Record<string, string | undefined>;
}

/** Stands for Passport's AuthGuard: `Authorization: Bearer <name>` sets `req.user`. */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<DemoRequest>();
    const name = /^Bearer (\w+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (name !== undefined) req.user = { id: name };
    return true;
  }
}

@Controller()
export class ApiController {
  /** Under the global limit only (10 a minute per client). */
  @Get('users/:id')
  show(@Param('id') id: string, @Req() req: DemoRequest) {
    return { id, remaining: req.rateLimit?.remaining };
  }

  /** A named limiter on top of the global limit. */
  @Throttle('throttle:login')
  @Post('login')
  login() {
    return { ok: true };
  }

  /** Exempt from the global limit: probes never use up a client's quota. */
  @SkipThrottle()
  @Get('health')
  health() {
    return 'ok';
  }
}

/**
 * Every handler: 2 a minute per user, checked after authentication (the guard order), on
 * top of the global limit; `@SkipThrottle()` on the class exempts it from the global limit.
 */
@SkipThrottle()
@Throttle('2/min')
@UseGuards(BearerAuthGuard, SluiceGuard)
@Controller('reports')
export class ReportsController {
  @Get('daily')
  daily(@Req() req: DemoRequest) {
    return { user: req.user?.id ?? null, remaining: req.rateLimit?.remaining };
  }
}

/** The demo's module; `options` replace the defaults (tests pass a fake clock). */
export function appModule(options: SluiceModuleOptions = {}) {
  @Module({
    imports: [
      SluiceModule.forRoot({ limit: '10/min', headers: ['legacy', 'draft-8'], ...options }),
    ],
    controllers: [ApiController, ReportsController],
  })
  class AppModule {}
  return AppModule;
}
