import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { NotificationsModule } from '@app/notifications';
import { PagesModule } from '@app/pages';
import { VersionModule } from '@app/version';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminPages } from './admin-pages';
import { AdminController } from './admin.controller';
import { AdminGuard } from './admin.guard';
import { AuditTrail } from './audit-trail';
import { CustomCssController } from './custom-css.controller';
import { CustomStylesheetEntity } from './custom-stylesheet.entity';
import { CustomStylesheets } from './custom-stylesheets';

@Module({
  imports: [TypeOrmModule.forFeature([CustomStylesheetEntity]), PagesModule, AuditModule, NotificationsModule, VersionModule],
  controllers: [AdminController, CustomCssController],
  providers: [AdminGuard, AdminExceptionFilter, AdminPages, AuditTrail, CustomStylesheets],
})
export class AdminModule {}
