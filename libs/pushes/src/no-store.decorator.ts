import { Header } from '@nestjs/common';

/** Secrets must not be kept by browsers or intermediaries. */
export const NoStore = (): MethodDecorator => Header('Cache-Control', 'no-store');
