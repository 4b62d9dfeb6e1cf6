import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { SingleSignOnPages } from './single-sign-on-pages';

/** The single sign-on button's target and the provider's way back. Sessions, not API tokens: public to the API guard. */
@Controller('users/auth/oidc')
@Public()
@UseFilters(PageExceptionFilter)
export class SingleSignOnPagesController {
  constructor(
    private readonly pages: SingleSignOnPages,
    private readonly responder: PageResponder,
  ) {}

  @Post()
  async begin(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.begin(request, response));
  }

  @Get('callback')
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.callback(request, response));
  }
}
