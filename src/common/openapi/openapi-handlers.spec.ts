import { Controller, Get, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { operationId } from './openapi';
import { checkOperationIds } from './openapi-handlers';

@Controller('a')
class AController {
  @Get()
  listThings(): void {}
}

@Controller('b')
class BController {
  @Get()
  listThings(): void {}

  @Get('other')
  listOthers(): void {}
}

@Module({ controllers: [AController] })
class OneModule {}

@Module({ controllers: [AController, BController] })
class ClashModule {}

describe('operation ids: the handlers’ names, one per operation', () => {
  const app = (module: Type) => NestFactory.create(module, { logger: false, abortOnError: false });

  it('takes the handler’s name', () => {
    expect(operationId('ContentController', 'listContent')).toBe('listContent');
  });

  it('stops the document on two handlers of one name, naming both', async () => {
    const clash = await app(ClashModule);
    expect(() => checkOperationIds(clash, operationId)).toThrow(
      'BController.listThings and AController.listThings give one operation id, listThings: rename one handler',
    );
    await clash.close();
    const one = await app(OneModule);
    expect(() => checkOperationIds(one, operationId)).not.toThrow();
    await one.close();
  });
});
