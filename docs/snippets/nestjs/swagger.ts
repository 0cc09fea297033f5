// The 429 and the rate-limit headers in @nestjs/swagger's document.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { addSluiceApiResponses } from '@sluice/nestjs';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule);
// Before createDocument: every handler SluiceGuard limits gets its 429 and headers.
addSluiceApiResponses(app);
const config = new DocumentBuilder().setTitle('My API').setVersion('1.0.0').build();
SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, config));
await app.listen(3000, '127.0.0.1');
