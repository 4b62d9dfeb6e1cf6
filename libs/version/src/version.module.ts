import { Module } from '@nestjs/common';
import { V1VersionController, VersionController } from './version.controller';
import { VersionService } from './version.service';

@Module({ controllers: [VersionController, V1VersionController], providers: [VersionService] })
export class VersionModule {}
