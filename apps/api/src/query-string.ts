import { parse } from 'node:querystring';

type Query = Record<string, string | string[]>;

/**
 * Express's query parser. Query parameters are scalars: node's flat parser alone would read
 * `page[]=1` or `page[a]=1` as keys of their own, which nothing reads, so the request would
 * silently get the default page. Such keys are folded into their base name as a list, which no
 * scalar parameter accepts: the endpoint answers 400 instead of ignoring what the client meant.
 */
export function parseScalarQuery(queryString: string): Query {
  const query = parse(queryString) as Query;
  for (const key of Object.keys(query)) {
    const base = /^([^[\]]+)\[/.exec(key)?.[1];
    if (base === undefined) continue;
    query[base] = [query[base] ?? [], query[key]].flat();
    delete query[key];
  }
  return query;
}
