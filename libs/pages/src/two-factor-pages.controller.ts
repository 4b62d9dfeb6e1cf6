import { Controller, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { TwoFactorPages } from './two-factor-pages';

/**
 * Two-factor authentication's setup and settings, at the reference's paths. Sessions, not API
 * tokens: public to the API guard. Turning it off is the reference's DELETE /user/two_factor as
 * browsers send it, a POST with `_method=delete`: a DELETE's body is not read here, so it could
 * carry no CSRF token.
 */
@Controller('user/two_factor')
@Public()
@UseFilters(PageExceptionFilter)
export class TwoFactorPagesController {
  constructor(
    private readonly pages: TwoFactorPages,
    private readonly responder: PageResponder,
  ) {}

  @Get()
  async overview(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.overview(request));
  }

  @Get('backup_codes')
  async backupCodes(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.backupCodes(request));
  }

  @Post('backup_codes')
  @HttpCode(200)
  async regenerate(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.regenerate(request));
  }

  @Get('verify')
  async verifyForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.verifyForm(request));
  }

  @Post()
  @HttpCode(200)
  async submit(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.submit(request));
  }
}
