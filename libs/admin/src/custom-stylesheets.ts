import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { Repository } from 'typeorm';
import { Clock, ValidationFailedError } from '@app/common';
import { text } from '@app/pages';
import { CustomStylesheetEntity } from './custom-stylesheet.entity';

/** The longest custom stylesheet accepted, in characters. */
export const CUSTOM_CSS_MAX = 65_536;

/** The stylesheet as served: its text and a validator for conditional requests. */
export interface ServedStylesheet {
  css: string;
  etag: string;
}

/**
 * The instance's custom CSS: kept in the database (each save a row, with who saved it), served as
 * /custom.css, which every page links (a stylesheet, never inline style: the CSP stays strict).
 * Read from the database on each request for it, so every replica serves the newest at once.
 */
@Injectable()
export class CustomStylesheets {
  constructor(
    @InjectRepository(CustomStylesheetEntity) private readonly rows: Repository<CustomStylesheetEntity>,
    private readonly clock: Clock,
  ) {}

  async current(): Promise<ServedStylesheet> {
    const [row] = await this.rows.find({ order: { id: 'DESC' }, take: 1 });
    const css = row?.css ?? '';
    return { css, etag: `"${createHash('sha256').update(css).digest('base64url').slice(0, 27)}"` };
  }

  async save(css: string, administrator: string): Promise<void> {
    if (css.length > CUSTOM_CSS_MAX) throw new ValidationFailedError({ css: [text('admin.css.tooLong', { max: CUSTOM_CSS_MAX })] });
    await this.rows.insert({ css: css.replace(/\r\n/g, '\n'), savedBy: administrator, createdAt: this.clock.now() });
  }
}
