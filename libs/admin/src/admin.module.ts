import { Module } from '@nestjs/common';
import { AuditModule } from '@app/audit';
import { NotificationsModule } from '@app/notifications';
import { PagesModule } from '@app/pages';
import { VersionModule } from '@app/version';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminPages } from './admin-pages';
import { AdminController } from './admin.controller';
import { AdminGuard } from './admin.guard';
import { AuditTrail } from './audit-trail';

@Module({
  imports: [PagesModule, AuditModule, NotificationsModule, VersionModule],
  controllers: [AdminController],
  providers: [AdminGuard, AdminExceptionFilter, AdminPages, AuditTrail],
})
export class AdminModule {}
