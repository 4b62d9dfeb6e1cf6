import { Controller, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { AccountPages } from './account-pages';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';

/** Sign-in (password; the single sign-on button posts to SingleSignOnPagesController), sign-out and /users/token. Sessions, not API tokens: public to the API guard. */
@Controller('users')
@Public()
@UseFilters(PageExceptionFilter)
export class AccountPagesController {
  constructor(
    private readonly pages: AccountPages,
    private readonly responder: PageResponder,
  ) {}

  @Get('sign_in')
  async signInForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.signInForm(request));
  }

  @Post('sign_in')
  @HttpCode(200)
  async signIn(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.signIn(request, response));
  }

  @Post('sign_out')
  async signOut(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.signOut(request, response));
  }

  @Get('token')
  async tokens(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.tokens(request));
  }

  @Post('token')
  async issue(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.issue(request));
  }

  @Post('token/rotate')
  async rotate(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.rotate(request));
  }

  @Post('token/revoke')
  async revoke(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.revoke(request));
  }
}
