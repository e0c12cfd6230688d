'use strict';
// A bare NestJS (express) app answering GET /health: the baseline for bench/run.js.
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

class HelloController {
  live() {
    return { status: 'ok' };
  }
}
Get()(HelloController.prototype, 'live', Object.getOwnPropertyDescriptor(HelloController.prototype, 'live'));
Controller('health')(HelloController);

class HelloModule {}
Module({ controllers: [HelloController] })(HelloModule);

NestFactory.create(HelloModule, { logger: false }).then((app) => app.listen(Number(process.env.PORT), '127.0.0.1'));
