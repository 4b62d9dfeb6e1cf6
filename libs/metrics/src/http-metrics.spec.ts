import type { Request } from 'express';
import { methodLabel, routeLabel, statusClassLabel } from './http-metrics';

const requestWith = (route: unknown, baseUrl = ''): Request => ({ route, baseUrl }) as unknown as Request;

describe('request metric labels', () => {
  it('use the route template, never the path', () => {
    expect(routeLabel(requestWith({ path: '/api/v2/pushes/:url_token' }))).toBe('/api/v2/pushes/:url_token');
    expect(routeLabel(requestWith({ path: '/:url_token' }, '/api/v2/pushes'))).toBe('/api/v2/pushes/:url_token');
  });

  it('call requests no route took, or only the catch-all not-found route, unmatched', () => {
    expect(routeLabel(requestWith(undefined))).toBe('unmatched');
    expect(routeLabel(requestWith({ path: '/{*path}' }))).toBe('unmatched');
    expect(routeLabel(requestWith({ path: '*' }))).toBe('unmatched');
    expect(routeLabel(requestWith({ path: /regex/ }))).toBe('unmatched');
  });

  it('keep methods to a fixed set', () => {
    expect(['get', 'POST', 'delete', 'OPTIONS'].map(methodLabel)).toEqual(['GET', 'POST', 'DELETE', 'OPTIONS']);
    expect(['PROPFIND', 'PURGE', 'M-SEARCH', '', undefined].map(methodLabel)).toEqual(Array(5).fill('OTHER'));
  });

  it('group statuses by class', () => {
    expect([200, 201, 304, 404, 429, 503].map(statusClassLabel)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '5xx']);
    expect([0, 99, 600].map(statusClassLabel)).toEqual(['other', 'other', 'other']);
  });
});
