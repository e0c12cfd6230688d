import { DynamicModule, Global, Module } from '@nestjs/common';
import { CONFIG_CLASSES, Configs } from './configs';

/** Provides each settings class of CONFIG_CLASSES, everywhere: a file injects the ones it reads. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(configs: Configs): DynamicModule {
    const providers = Object.entries(CONFIG_CLASSES).map(([name, type]) => ({
      provide: type,
      useValue: configs[name as keyof Configs],
    }));
    return { module: ConfigModule, providers, exports: providers.map((p) => p.provide) };
  }
}
