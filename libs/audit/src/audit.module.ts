import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { RequestAuditEntryEntity } from './request-audit-entry.entity';

@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity, RequestAuditEntryEntity])],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
