import { loadSettings, SettingsError } from './settings';

describe('webhook settings', () => {
  const webhooks = (env: Record<string, string>) => loadSettings(env).webhooks;

  it('default to https only, no exceptions to the address rules, and 10 s an attempt', () => {
    expect(webhooks({})).toEqual({ allowHttp: false, allowedHosts: [], timeoutMs: 10_000 });
  });

  it('read PWP__WEBHOOKS__ALLOW_HTTP and PWP__WEBHOOKS__TIMEOUT_SECONDS', () => {
    expect(webhooks({ PWP__WEBHOOKS__ALLOW_HTTP: 'true', PWP__WEBHOOKS__TIMEOUT_SECONDS: '3' })).toMatchObject({
      allowHttp: true,
      timeoutMs: 3000,
    });
  });

  it('read PWP__WEBHOOKS__ALLOWED_HOSTS as host names (lower-cased), addresses and CIDR ranges', () => {
    const env = { PWP__WEBHOOKS__ALLOWED_HOSTS: ' Hooks.Internal , 127.0.0.1,10.0.0.0/8, fd00::/8,::1,receiver ' };
    expect(webhooks(env).allowedHosts).toEqual(['hooks.internal', '127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'receiver']);
  });

  it.each(['http://hooks.internal', 'hooks.internal:8443', '10.0.0.0/33', '999.1.1.1', '-bad.example', 'a_b.example', '*.example.com'])(
    'stop start-up for the allowed host %s, naming the variable',
    (entry) => {
      const load = () => webhooks({ PWP__WEBHOOKS__ALLOWED_HOSTS: `example.com,${entry}` });
      expect(load).toThrow(SettingsError);
      expect(load).toThrow(/Invalid setting PWP__WEBHOOKS__ALLOWED_HOSTS/);
    },
  );

  it.each(['0', '61', '1.5', 'ten'])('stop start-up for the timeout %s: a short whole number of seconds', (value) => {
    expect(() => webhooks({ PWP__WEBHOOKS__TIMEOUT_SECONDS: value })).toThrow(/Invalid setting PWP__WEBHOOKS__TIMEOUT_SECONDS/);
  });

  it('stop start-up for a PWP__WEBHOOKS__ALLOW_HTTP that is not a boolean', () => {
    expect(() => webhooks({ PWP__WEBHOOKS__ALLOW_HTTP: 'maybe' })).toThrow(/Invalid setting PWP__WEBHOOKS__ALLOW_HTTP/);
  });
});
