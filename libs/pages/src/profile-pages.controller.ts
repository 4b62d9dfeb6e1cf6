import { Controller, Get, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { ProfilePages } from './profile-pages';

/** The account page and its forms. Sessions, not API tokens: public to the API guard. */
@Controller('users')
@Public()
@UseFilters(PageExceptionFilter)
export class ProfilePagesController {
  constructor(
    private readonly pages: ProfilePages,
    private readonly responder: PageResponder,
  ) {}

  @Get('edit')
  async edit(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.edit(request));
  }

  @Post('edit/email')
  @HttpCode(200)
  async changeEmail(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.changeEmail(request));
  }

  @Post('edit/password')
  @HttpCode(200)
  async changePassword(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.changePassword(request));
  }

  @Post('edit/language')
  @HttpCode(200)
  async setLanguage(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.setLanguage(request));
  }

  @Post('delete')
  @HttpCode(200)
  async delete(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.delete(request, response));
  }
}
