import { Controller, Get, HttpCode, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { SignUpPages } from './sign-up-pages';

/** Sign-up, the first run and address confirmation. Sessions, not API tokens: public to the API guard. */
@Controller()
@Public()
@UseFilters(PageExceptionFilter)
export class SignUpPagesController {
  constructor(
    private readonly pages: SignUpPages,
    private readonly responder: PageResponder,
  ) {}

  @Get('users/sign_up')
  async signUpForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.signUpForm(request));
  }

  @Post('users')
  @HttpCode(200)
  async signUp(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.signUp(request, response));
  }

  @Get('first_run')
  async firstRunForm(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.firstRunForm());
  }

  @Post('first_run')
  @HttpCode(200)
  async firstRun(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.createFirstAccount(request, response));
  }

  @Get('users/confirmation')
  async confirmationPage(@Query('confirmation_token') token: unknown, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.confirmationPage(token));
  }

  @Post('users/confirmation')
  @HttpCode(200)
  async confirm(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.confirm(request));
  }

  @Get('users/confirmation/new')
  resendForm(@Req() request: Request, @Res() response: Response): void {
    this.responder.send(request, response, this.pages.resendForm());
  }

  @Post('users/confirmation/new')
  @HttpCode(200)
  async resend(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.resend(request));
  }
}
