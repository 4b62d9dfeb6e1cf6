import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ExpirySweepScheduler } from './expiry-sweep.scheduler';
import { PushesModule } from './pushes.module';

/** Runs the expiry sweep on its timetable; the server imports it, the CLI does not. */
@Module({
  imports: [ScheduleModule.forRoot(), PushesModule],
  providers: [ExpirySweepScheduler],
})
export class ExpirySweepModule {}
