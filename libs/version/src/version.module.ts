import { Module } from '@nestjs/common';
import { VersionController } from './version.controller';
import { VersionService } from './version.service';

/** Exports VersionService for API v1's version endpoint, which lives (and is turned off) with the rest of v1. */
@Module({ controllers: [VersionController], providers: [VersionService], exports: [VersionService] })
export class VersionModule {}
