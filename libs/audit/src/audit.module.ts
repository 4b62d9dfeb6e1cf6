import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditStdout } from './audit-stdout';

@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditRepository, AuditService, AuditStdout],
  exports: [AuditService, AuditStdout],
})
export class AuditModule {}
