/** Pushes: creating, retrieving, previewing and expiring secrets. */
export * from './pushes.module';
export { PushesService } from './pushes.service';
export { PushEntity } from './push.entity';
export { ExpirySweepService } from './expiry-sweep.service';
export { ExpirySweepModule } from './expiry-sweep.module';
export type { PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
