/**
 * Single sign-on driven over plain HTTP, as a browser would, against the test OpenID Provider
 * (oidc-provider-server.mjs): the app's sign-in page, its button, the provider's development login
 * form, and back to the app's callback. Cookies are kept per origin; redirects are followed by
 * hand, so each hop is the real one.
 */

export interface SignInResult {
  /** The callback's answer: 303 to /users/token when signed in, else the refusal page's status. */
  status: number;
  location: string | null;
  /** The refusal page's message (its role="alert" text), if any. */
  message: string | undefined;
  /** Whether the app set a session cookie. */
  session: boolean;
}

class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();

  header(url: URL): string {
    return [...(this.cookies.get(url.origin) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  keep(url: URL, response: Response): void {
    const jar = this.cookies.get(url.origin) ?? new Map<string, string>();
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    this.cookies.set(url.origin, jar);
  }
}

/** Signs in at `appBaseUrl` by single sign-on as the provider's `account`, and returns how the app's callback answered. */
export async function signInWithProvider(appBaseUrl: string, account: string): Promise<SignInResult> {
  const jar = new CookieJar();
  const send = async (href: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> => {
    const url = new URL(href);
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(url), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: init.form ? new URLSearchParams(init.form) : undefined,
    });
    jar.keep(url, response);
    return response;
  };
  const follow = async (response: Response, from: string): Promise<{ response: Response; url: string }> => {
    let url = from;
    while (response.status >= 300 && response.status < 400 && !new URL(response.headers.get('location')!, url).href.startsWith(`${appBaseUrl}/users/auth/oidc/callback`)) {
      url = new URL(response.headers.get('location')!, url).href;
      await response.arrayBuffer();
      response = await send(url);
    }
    return { response, url };
  };

  const page = await send(`${appBaseUrl}/users/sign_in`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const begun = await send(`${appBaseUrl}/users/auth/oidc`, { method: 'POST', form: { _csrf: csrf } });
  const atLogin = await follow(begun, `${appBaseUrl}/users/auth/oidc`);
  const action = /<form[^>]*action="([^"]+)"/.exec(await atLogin.response.text())?.[1];
  if (!action) throw new Error(`the provider showed no login form at ${atLogin.url}`);
  const loggedIn = await send(new URL(action, atLogin.url).href, { method: 'POST', form: { prompt: 'login', login: account, password: 'any password' } });
  const back = await follow(loggedIn, new URL(action, atLogin.url).href);
  const callback = back.response.headers.get('location');
  if (!callback) throw new Error(`the provider did not send the browser back (${back.response.status} at ${back.url})`);
  const answer = await send(new URL(callback, back.url).href);
  const html = await answer.text();
  return {
    status: answer.status,
    location: answer.headers.get('location'),
    message: /role="alert"[^>]*>([^<]*)</.exec(html)?.[1]?.trim(),
    session: jar.header(new URL(appBaseUrl)).split('; ').some((cookie) => cookie.startsWith('pwpush_session=')),
  };
}
