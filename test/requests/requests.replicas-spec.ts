import { request } from '../support/http';
import { startReplicas } from '../support/replicas';
import { CLI_MAIN, runNode, ServerProcess } from '../support/server-process';
import { TestDatabase } from '../support/test-database';

/**
 * Three real server processes on one MySQL or PostgreSQL database: a secret request takes exactly
 * one answer however many arrive at once across the replicas, and the requester reads the winner's.
 */
describe('secret requests across three replicas', () => {
  let database: TestDatabase;
  let servers: ServerProcess[];
  let owner: Record<string, string>;

  beforeAll(async () => {
    let env: Record<string, string>;
    ({ database, servers, env } = await startReplicas({
      EXPIRY_SWEEP_INTERVAL_SECONDS: '1',
      PWP__THROTTLING__MINUTE: '1000000',
      PWP__THROTTLING__SECOND: '1000000',
    }));
    const created = await runNode(CLI_MAIN, ['users:create', '--email', 'requester@example.com'], env);
    expect([created.code, created.stderr]).toEqual([0, '']);
    owner = { authorization: `Bearer ${(JSON.parse(created.stdout) as { api_token: string }).api_token}` };
  });

  afterAll(async () => {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await database?.drop();
  });

  it.each([1, 2, 3])('takes exactly one of 30 simultaneous answers spread over the replicas (round %i)', async () => {
    const created = await request(servers[0].url, 'POST', '/api/v2/requests', { json: { request: { request: 'the key, please' } }, headers: owner });
    expect(created.status).toBe(201);
    const urlToken = created.body.url_token as string;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => request(servers[i % servers.length].url, 'PATCH', `/api/v2/requests/${urlToken}/respond`, { json: { request: { response: `answer ${i}` } } })),
    );
    const won = answers.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
    expect(won).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(29);
    for (const server of servers) {
      const read = await request(server.url, 'GET', `/api/v2/requests/${urlToken}`, { headers: owner });
      expect(read.body).toMatchObject({ state: 'ready', response: `answer ${won[0]}` });
    }
    const [{ n }] = await database.sql<{ n: unknown }>("SELECT COUNT(*) AS n FROM request_audit_entries e JOIN requests r ON r.id = e.request_id WHERE r.url_token = ? AND e.kind = 'response'", [urlToken]);
    expect(Number(n)).toBe(1);
  });
});
