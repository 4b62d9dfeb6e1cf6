import { Controller, Get, Header } from '@nestjs/common';
import { InjectSettings, type Settings } from '@app/config';
import { SkipThrottle } from '@nestjs/throttler';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Public } from '@app/auth';
import { PAGES_ROOT } from './page-renderer';

const asset = (name: string): string => readFileSync(join(PAGES_ROOT, 'public', name), 'utf8');

/** The pages' stylesheet and their one script (copy buttons, upload progress), read once; they hold nothing secret. */
@Controller('assets')
@Public()
@SkipThrottle()
export class AssetsController {
  private readonly css = asset('pages.css');
  private readonly source = asset('pages.js');

  @Get('pages.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  stylesheet(): string {
    return this.css;
  }

  @Get('pages.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  script(): string {
    return this.source;
  }
}

/**
 * /robots.txt: with PWP__NOINDEX (the default) nothing may be crawled, as the reference's; without
 * it the front page may, but never the paths behind which secrets and accounts live.
 */
@Controller()
@Public()
@SkipThrottle()
export class RobotsController {
  private readonly rules: string;

  constructor(@InjectSettings() settings: Settings) {
    const disallowed = settings.pages.noindex ? ['/'] : ['/p/', '/f/', '/r/', '/api/', '/users/', '/dashboard/'];
    this.rules = ['User-agent: *', ...disallowed.map((path) => `Disallow: ${path}`), ''].join('\n');
  }

  @Get('robots.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  robots(): string {
    return this.rules;
  }
}
