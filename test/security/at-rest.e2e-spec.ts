import { client } from '../support/http';
import { startTestApp, TEST_MASTER_KEY, TestApp } from '../support/test-app';

const PAYLOAD = 'Zebra-Payload-7f3a91c2';
const NOTE = 'Quokka-Note-55e0b7d1';
const PASSPHRASE = 'Narwhal-Passphrase-c0ffee42';

/** Every cell of every row of every table, as text in several encodings, for a plaintext search. */
async function dumpDatabase(app: TestApp): Promise<string> {
  const tables = app.dataSource.entityMetadatas.map((m) => m.tableName);
  const parts: string[] = [];
  for (const table of tables) {
    const rows: Record<string, unknown>[] = await app.query(`SELECT * FROM ${table}`);
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (Buffer.isBuffer(value)) parts.push(value.toString('utf8'), value.toString('latin1'), value.toString('base64'), value.toString('hex'));
        else parts.push(String(value));
      }
    }
  }
  return parts.join('\n');
}

describe('secrets at rest', () => {
  let app: TestApp;

  afterEach(() => app?.close({ drop: true }));

  it('stores no payload, note or passphrase in plaintext, and destroys the ciphertext on expiry', async () => {
    app = await startTestApp();
    const api = client(app.baseUrl);
    const { url_token } = await api.createPush({ payload: PAYLOAD, note: NOTE, passphrase: PASSPHRASE, expire_after_views: 1 });

    const dump = await dumpDatabase(app);
    for (const secret of [PAYLOAD, NOTE, PASSPHRASE]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret).toString('base64'));
      expect(dump).not.toContain(Buffer.from(secret).toString('hex'));
    }

    const [before] = await app.query('SELECT payload, note, passphrase_hash FROM pushes WHERE url_token = ?', [url_token]);
    expect(Buffer.isBuffer(before.payload)).toBe(true);
    expect(before.payload.length).toBeGreaterThan(PAYLOAD.length);
    expect(before.passphrase_hash).toMatch(/^\$argon2id\$/);

    const retrieved = await api.get(`/api/v2/pushes/${url_token}`, { 'x-passphrase': PASSPHRASE });
    expect(retrieved.body.payload).toBe(PAYLOAD);

    const [after] = await app.query('SELECT payload, passphrase_hash, note, expired FROM pushes WHERE url_token = ?', [url_token]);
    expect(after.payload).toBeNull();
    expect(after.passphrase_hash).toBeNull();
    expect(Number(after.expired)).toBe(1);
    expect(after.note).not.toBeNull();
  });

  it('tells the key id in each ciphertext and keeps old ciphertexts readable after a key rotation', async () => {
    app = await startTestApp({ PWPUSH_MASTER_KEY: TEST_MASTER_KEY });
    const old = await client(app.baseUrl).createPush({ payload: 'under the old key', expire_after_views: 2 });
    const database = app.database;
    await app.close();

    const newKey = 'b'.repeat(64);
    app = await startTestApp({ PWPUSH_MASTER_KEY: newKey, PWPUSH_MASTER_KEY_PREVIOUS: TEST_MASTER_KEY }, database);
    const api = client(app.baseUrl);
    expect((await api.get(`/api/v2/pushes/${old.url_token}`)).body.payload).toBe('under the old key');
    const fresh = await api.createPush({ payload: 'under the new key' });
    const rows: { url_token: string; payload: Buffer }[] = await app.query('SELECT url_token, payload FROM pushes');
    const keyIdOf = (token: string) => rows.find((r) => r.url_token === token)!.payload.subarray(1, 5).toString('hex');
    expect(keyIdOf(fresh.url_token)).not.toEqual(keyIdOf(old.url_token));
    expect((await api.get(`/api/v2/pushes/${fresh.url_token}`)).body.payload).toBe('under the new key');
  });
});
