/** A browser's cookie jar, reduced to what the pages set. */
export class Visitor {
  readonly cookies = new Map<string, string>();
  lastSetCookies: string[] = [];

  constructor(private baseUrl: string) {}

  on(baseUrl: string): this {
    this.baseUrl = baseUrl;
    return this;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; html: string; location: string | null }> {
    return this.send(path, { headers });
  }

  /** POSTs a form with the CSRF token the page at `formPage` carries. */
  async submit(formPage: string, action: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await this.get(formPage, headers)).html)?.[1] ?? '';
    return this.send(action, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, ...fields }).toString() });
  }

  private async send(path: string, init: RequestInit & { headers: Record<string, string> }) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.baseUrl}${path}`, { ...init, redirect: 'manual', headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
    this.lastSetCookies = response.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair] = line.split(';');
      const [name, value] = pair.split('=');
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, html: await response.text(), location: response.headers.get('location') };
  }
}
