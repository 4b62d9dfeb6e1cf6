import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { RequestsSweepScheduler } from './requests-sweep.service';
import { RequestsModule } from './requests.module';

/** Runs the requests' sweep on its timetable; the server imports it, the CLI does not. */
@Module({
  imports: [ScheduleModule.forRoot(), RequestsModule],
  providers: [RequestsSweepScheduler],
})
export class RequestsSweepModule {}
