import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Response } from 'express';

export const PAGE_SIZE = 50;
export const MAX_PAGE = 200;
const INVALID_PAGE = 'Invalid page parameter';

/** `?page=N`: a decimal integer from 1 to 200, default 1; anything else is a 400. */
export class PageQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: `Page number, ${PAGE_SIZE} items per page; a decimal integer from 1 to ${MAX_PAGE}, anything else (also \`page[]=1\` or \`page[a]=1\`) is a 400.`,
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value))
  @IsOptional()
  @IsInt({ message: INVALID_PAGE })
  @Min(1, { message: INVALID_PAGE })
  @Max(MAX_PAGE, { message: INVALID_PAGE })
  page: number = 1;
}

/** A page of results and, when another follows, the URL of the next one. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * Splits a fetch of PAGE_SIZE + 1 rows into a page; `url(n)` names page n, which the caller builds
 * as it builds its other links.
 */
export function toPage<T>(rows: T[], page: number, url: (page: number) => string): Page<T> {
  const hasNext = rows.length > PAGE_SIZE && page < MAX_PAGE;
  return { items: rows.slice(0, PAGE_SIZE), next: hasNext ? url(page + 1) : null };
}

/**
 * Answers a Page as a bare JSON array, with `Link: <next>; rel="next"` when there is more. A
 * function the handler calls rather than an interceptor: Nest runs every call of a route with an
 * interceptor through rxjs, which cost a list page more than the work of its Link header.
 */
export function answerPage<T>(response: Response, page: Page<T>): T[] {
  if (page.next !== null) response.setHeader('Link', `<${page.next}>; rel="next"`);
  return page.items;
}
