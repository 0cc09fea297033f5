// A Nest app (Express platform, the latest Nest major) on the installed tarballs, in ESM
// TypeScript compiled with `tsc --strict --experimentalDecorators --module nodenext`, Nest's
// decorators: GET /users/1 twice under a @Throttle of 1 per minute must answer 200 then 429.
import 'reflect-metadata';
import { Controller, Get, Module, Param, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type Decision, SkipThrottle, SluiceModule, Throttle } from '@sluice/nestjs';

@Controller('users')
class UsersController {
  @Throttle('1/min')
  @Get(':id')
  show(@Param('id') id: string, @Req() req: { rateLimit?: Decision }) {
    return { id, remaining: req.rateLimit?.remaining };
  }

  @SkipThrottle()
  @Get('health')
  health() {
    return 'ok';
  }
}

@Module({
  imports: [SluiceModule.forRoot({ limit: 'throttle:60,1' })],
  controllers: [UsersController],
})
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
const codes: number[] = [];
for (let i = 0; i < 2; i++) codes.push((await fetch(`${url}/users/1`)).status);
await app.close();
console.log(`nestjs (Express platform, ESM TypeScript, strict): ${codes.join(' ')}`);
process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
