import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditStdout } from './audit-stdout';
import { RequestAuditEntryEntity } from './request-audit-entry.entity';

@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity, RequestAuditEntryEntity])],
  providers: [AuditRepository, AuditService, AuditStdout],
  exports: [AuditService, AuditStdout],
})
export class AuditModule {}
