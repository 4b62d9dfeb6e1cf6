import { Controller, createParamDecorator, ExecutionContext, Get, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type Administrator, PERSON_ACTIONS, type PersonAction, Public } from '@app/auth';
import { Client, type ClientInfo, clientInfoOf, NotFoundError } from '@app/common';
import { formField, PageResponder } from '@app/pages';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminPages, trailFilter } from './admin-pages';
import { EXPORT_FORMATS, type ExportFormat, streamExport } from './audit-export';
import { AuditTrail } from './audit-trail';
import { AdminGuard, type AdminRequest } from './admin.guard';

/** The administrator AdminGuard let through, with the client they act from (every action is logged with both). */
const Admin = createParamDecorator((_: unknown, context: ExecutionContext): Administrator => {
  const request = context.switchToHttp().getRequest<AdminRequest>();
  return { user: request.user!, client: clientInfoOf(request) };
});

/** One of the actions on people, or the neutral 404. */
function personAction(value: string): PersonAction {
  if (!(PERSON_ACTIONS as readonly string[]).includes(value)) throw new NotFoundError();
  return value as PersonAction;
}

/** One of the export formats, or the neutral 404. */
function exportFormat(value: unknown): ExportFormat {
  if (!(EXPORT_FORMATS as readonly unknown[]).includes(value)) throw new NotFoundError();
  return value as ExportFormat;
}

/**
 * The administration center under /admin: sessions, not API tokens (public to the API guard);
 * AdminGuard answers 404 to everyone but an administrator, on every route and method.
 */
@Controller('admin')
@Public()
@UseGuards(AdminGuard)
@UseFilters(AdminExceptionFilter)
export class AdminController {
  constructor(
    private readonly pages: AdminPages,
    private readonly responder: PageResponder,
    private readonly trail: AuditTrail,
  ) {}

  @Get()
  async home(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.home());
  }

  @Get('users')
  async users(@Admin() admin: Administrator, @Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.users(admin, query));
  }

  @Post('users/:id/:action')
  async act(@Admin() admin: Administrator, @Param('id') id: string, @Param('action') action: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.act(admin, id, personAction(action)));
  }

  @Get('pushes')
  async pushes(@Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.pushList(query));
  }

  @Post('pushes/:id/expire')
  async expire(@Admin() admin: Administrator, @Param('id') id: string, @Client() client: ClientInfo, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.expire(admin, id, client));
  }

  @Get('audit')
  async audit(@Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.auditLog(query));
  }

  /** The log under the page's filters, streamed as CSV or JSON lines (see docs/administration.md for the fields). */
  @Get('audit/export')
  async export(@Admin() admin: Administrator, @Query() query: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const format = exportFormat(query.format);
    const filter = trailFilter(query);
    const pages = await this.trail.walk(filter);
    await this.pages.exporting(admin, format, filter);
    await streamExport(response, format, pages, new Date().toISOString().slice(0, 10));
  }

  @Get('notifications')
  async notifications(@Query() query: Record<string, unknown>, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.notifications(query));
  }

  @Post('notifications/:id/retry')
  async retry(@Param('id') id: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.retry(id));
  }

  @Get('custom_css')
  async customCss(@Query('done') done: unknown, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.customCss(done));
  }

  @Post('custom_css')
  async saveCustomCss(@Admin() admin: Administrator, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.saveCustomCss(admin, formField(request, 'css')));
  }
}
