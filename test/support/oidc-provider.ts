import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './helpers';

const SCRIPT = join(__dirname, 'oidc-provider-server.mjs');

/** The ways the test provider can make its next ID token wrong (see oidc-provider-server.mjs). */
export type IdTokenTamper = 'aud' | 'exp' | 'nonce';

export interface TestOidcProvider {
  issuer: string;
  /** The client_secret_basic client, as the app's settings name it. */
  clientId: 'pwpush';
  clientSecret: string;
  /** The next token response carries an ID token wrong in this one way, signed with the provider's key. */
  tamperNextIdToken(how: IdTokenTamper): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the test OpenID Provider (oidc-provider, in a process of its own) on 127.0.0.1 and a
 * free port (or `port`), with clients whose redirect URIs are the given ones.
 */
export async function startOidcProvider(options: { redirectUris: string[]; postLogoutUris: string[]; clientJwks?: object; port?: number }): Promise<TestOidcProvider> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      REDIRECT_URIS: options.redirectUris.join(','),
      POST_LOGOUT_URIS: options.postLogoutUris.join(','),
      ...(options.clientJwks ? { CLIENT_JWKS: JSON.stringify(options.clientJwks) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the test OpenID Provider did not start:\n${output}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^ready (\S+)$/m.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the test OpenID Provider exited with ${code}:\n${output}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    issuer,
    clientId: 'pwpush',
    clientSecret: 'pwpush-test-secret',
    tamperNextIdToken: async (how) => {
      const response = await fetch(`${issuer}/test/tamper?with=${how}`, { method: 'POST' });
      if (response.status !== 204) throw new Error(`tamper ${how}: ${response.status}`);
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
