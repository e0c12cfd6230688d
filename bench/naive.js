'use strict';
// Baseline: the naive NestJS + TypeORM handler, `repo.find({ take: 20 })` over the same published
// items of site `demo` that Sitebase's list serves, newest published first, whole entities
// serialised as they come. For bench/run.js; DATABASE_URL and SITE_ID from the environment.
require('reflect-metadata');
const { Controller, Get, Injectable, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { TypeOrmModule, InjectRepository } = require('@nestjs/typeorm');
const { EntitySchema } = require('typeorm');

const Item = new EntitySchema({
  name: 'Item',
  tableName: 'content_items',
  columns: {
    id: { type: 'bigint', primary: true },
    siteId: { type: 'bigint', name: 'site_id' },
    type: { type: 'text' },
    title: { type: 'text' },
    slug: { type: 'text' },
    content: { type: 'text' },
    excerpt: { type: 'text' },
    status: { type: 'text' },
    publishedAt: { type: 'timestamptz', name: 'published_at' },
    tags: { type: 'text', array: true },
    categories: { type: 'text', array: true },
    authors: { type: 'jsonb' },
    createdAt: { type: 'timestamptz', name: 'created_at' },
    updatedAt: { type: 'timestamptz', name: 'updated_at' },
  },
});

const SITE_ID = process.env.SITE_ID;

class ItemsController {
  constructor(repo) {
    this.repo = repo;
  }
  list() {
    return this.repo.find({
      where: { siteId: SITE_ID, status: 'published' },
      order: { publishedAt: 'DESC', id: 'DESC' },
      take: 20,
    });
  }
}
InjectRepository(Item)(ItemsController, undefined, 0);
Reflect.defineMetadata('design:paramtypes', [Object], ItemsController);
Get()(ItemsController.prototype, 'list', Object.getOwnPropertyDescriptor(ItemsController.prototype, 'list'));
Controller('items')(ItemsController);

class NaiveModule {}
Module({
  imports: [
    TypeOrmModule.forRoot({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Item] }),
    TypeOrmModule.forFeature([Item]),
  ],
  controllers: [ItemsController],
})(NaiveModule);

NestFactory.create(NaiveModule, { logger: false }).then((app) => app.listen(Number(process.env.PORT), '127.0.0.1'));
