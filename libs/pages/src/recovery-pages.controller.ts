import { Controller, Get, HttpCode, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { RecoveryPages } from './recovery-pages';

/** Password reset and unlock by mailed links. Sessions, not API tokens: public to the API guard. */
@Controller('users')
@Public()
@UseFilters(PageExceptionFilter)
export class RecoveryPagesController {
  constructor(
    private readonly pages: RecoveryPages,
    private readonly responder: PageResponder,
  ) {}

  @Get('password/new')
  resetRequestForm(@Req() request: Request, @Res() response: Response): void {
    this.responder.send(request, response, this.pages.resetRequestForm());
  }

  @Post('password/new')
  @HttpCode(200)
  async requestReset(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.requestReset(request));
  }

  @Get('password/edit')
  async resetForm(@Query('reset_password_token') token: unknown, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.resetForm(token));
  }

  @Post('password')
  @HttpCode(200)
  async reset(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.reset(request, response));
  }

  @Get('unlock/new')
  unlockRequestForm(@Req() request: Request, @Res() response: Response): void {
    this.responder.send(request, response, this.pages.unlockRequestForm());
  }

  @Post('unlock/new')
  @HttpCode(200)
  async requestUnlock(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.requestUnlock(request));
  }

  @Get('unlock')
  async unlockPage(@Query('unlock_token') token: unknown, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.unlockPage(token));
  }

  @Post('unlock')
  @HttpCode(200)
  async unlock(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.unlock(request));
  }
}
