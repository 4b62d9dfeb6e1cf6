/** Pushes: creating, retrieving, previewing and expiring secrets. */
export * from './pushes.module';
export { PushEntity } from './push.entity';
