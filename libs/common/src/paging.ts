import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { InjectSettings, Settings } from '@app/config';
import { clientInfoOf, publicBaseUrl } from './client-info';

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

/** A page of results and whether another follows. */
export interface Page<T> {
  items: T[];
  page: number;
  hasNext: boolean;
}

/** Splits a fetch of PAGE_SIZE + 1 rows into a page and the knowledge of a next one. */
export function toPage<T>(rows: T[], page: number): Page<T> {
  return { items: rows.slice(0, PAGE_SIZE), page, hasNext: rows.length > PAGE_SIZE && page < MAX_PAGE };
}

/** Answers a Page as a bare JSON array, with `Link: <...?page=N+1>; rel="next"` when there is more. */
@Injectable()
export class PageInterceptor<T> implements NestInterceptor<Page<T>, T[]> {
  constructor(@InjectSettings() private readonly settings: Settings) {}

  intercept(context: ExecutionContext, next: CallHandler<Page<T>>): Observable<T[]> {
    const http = context.switchToHttp();
    return next.handle().pipe(
      map((page) => {
        if (page.hasNext) {
          const request = http.getRequest<Request>();
          const base = publicBaseUrl(this.settings, clientInfoOf(request));
          http.getResponse<Response>().setHeader('Link', `<${base}${request.path}?page=${page.page + 1}>; rel="next"`);
        }
        return page.items;
      }),
    );
  }
}

export const Paginated = () => UseInterceptors(PageInterceptor);
