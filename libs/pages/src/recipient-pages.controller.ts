import { Controller, Get, HttpCode, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { Client, type ClientInfo, RevealsSecret } from '@app/common';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { formField, PageSession } from './page-session';
import { RecipientPages } from './recipient-pages';

/** The passphrase comes only from a form body: never a URL, a redirect or a log. */
const passphraseOf = (request: Request): string | undefined => formField(request, 'passphrase');

/**
 * html_url's pages (`/p/:url_token`, `/p/:url_token/r`) and their forms. Public to the API guard:
 * recipients have no tokens, whatever PWP__ALLOW_ANONYMOUS says about the API.
 */
@Controller('p')
@Public()
@UseFilters(PageExceptionFilter)
export class RecipientPagesController {
  constructor(
    private readonly pages: RecipientPages,
    private readonly session: PageSession,
    private readonly responder: PageResponder,
  ) {}

  @Get(':url_token')
  // Reveals the secret when the sender chose no retrieval step.
  @RevealsSecret()
  async open(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.open(urlToken, client, false));
  }

  @Get(':url_token/r')
  async openWithStep(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.open(urlToken, client, true));
  }

  @Post([':url_token/r', ':url_token/access'])
  @HttpCode(200)
  async reveal(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.session.checkCsrf(request);
    this.responder.send(request, response, await this.pages.reveal(urlToken, passphraseOf(request), client));
  }

  @Post(':url_token/delete')
  @HttpCode(200)
  async delete(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.session.checkCsrf(request);
    this.responder.send(request, response, await this.pages.delete(urlToken, passphraseOf(request), client));
  }
}

/** The reference's other secret-link prefixes (`/f/...` for files, `/r/...`) lead to the same pages. */
@Controller()
@Public()
export class LegacyLinksController {
  @Get(['f/*path', 'r/*path'])
  redirect(@Param('path') path: string[], @Res() response: Response): void {
    response.redirect(301, `/p/${path.map(encodeURIComponent).join('/')}`);
  }
}
