import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { CustomStylesheets } from './custom-stylesheets';

/**
 * /custom.css, which every page links after the pages' own stylesheet: the administrators' custom
 * CSS (empty when there is none), revalidated on each use (no-cache with an ETag), so a change
 * shows at once without inline style.
 */
@Controller()
@Public()
export class CustomCssController {
  constructor(private readonly stylesheets: CustomStylesheets) {}

  @Get('custom.css')
  async stylesheet(@Req() request: Request, @Res() response: Response): Promise<void> {
    const { css, etag } = await this.stylesheets.current();
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('ETag', etag);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    if (request.headers['if-none-match'] === etag) {
      response.status(304).end();
      return;
    }
    response.status(200).type('text/css; charset=utf-8').send(css);
  }
}
