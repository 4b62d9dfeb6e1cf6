import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import { Settings } from './settings';

export const SETTINGS = Symbol('Settings');

/** Injects the validated settings object. */
export const InjectSettings = (): ParameterDecorator => Inject(SETTINGS);

@Global()
@Module({})
export class ConfigModule {
  /** Settings are loaded once by the process entry point (or a test) and shared read-only. */
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: SETTINGS, useValue: Object.freeze(settings) }],
      exports: [SETTINGS],
    };
  }
}
