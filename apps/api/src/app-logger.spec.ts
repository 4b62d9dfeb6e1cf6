import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { AppLogger, LOG_SAFETY } from './logging.module';

const SECRET = 'Secret-3f9d-Axolotl';

/** An AppLogger at `level` over the app's serializers and censor, and the lines it wrote. */
function capture(level = 'info'): { sut: AppLogger; lines: () => Record<string, unknown>[]; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const sut = new AppLogger(pino({ level, ...LOG_SAFETY }, sink));
  return { sut, text: () => text, lines: () => text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const request = (url: string) => ({ id: 'req-7', method: 'GET', url }) as unknown as IncomingMessage;
const response = (statusCode: number, writableFinished = true) => ({ statusCode, writableFinished }) as unknown as ServerResponse;

describe('AppLogger as Nest logger', () => {
  it('writes the context Nest passes last, at the matching level', () => {
    const { sut, lines } = capture('trace');
    sut.log('started', 'Health');
    sut.warn('slow', 'Redis');
    sut.error('failed', 'a stack trace', 'ExpirySweep');
    sut.debug('detail', 'Migrations');
    sut.verbose('chatter', 'Scheduler');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 30, context: 'Health', msg: 'started' }),
      expect.objectContaining({ level: 40, context: 'Redis', msg: 'slow' }),
      expect.objectContaining({ level: 50, context: 'ExpirySweep', msg: 'failed' }),
      expect.objectContaining({ level: 20, context: 'Migrations', msg: 'detail' }),
      expect.objectContaining({ level: 10, context: 'Scheduler', msg: 'chatter' }),
    ]);
  });

  it('leaves out stack traces, and logs errors by type and code only', () => {
    const { sut, text, lines } = capture();
    sut.error('failed', `Error: Duplicate entry '${SECRET}'\n    at Query.run`, 'Ctx');
    sut.error(Object.assign(new Error(`Duplicate entry '${SECRET}'`), { code: 'ER_DUP_ENTRY' }), 'Ctx');
    expect(text()).not.toContain(SECRET);
    expect(lines()[1]).toMatchObject({ level: 50, context: 'Ctx', msg: 'Error', err: { type: 'Error', code: 'ER_DUP_ENTRY' } });
  });

  it('censors secrets in objects it is given', () => {
    const { sut, text, lines } = capture();
    sut.log({ msg: 'created', push: { kind: 'text', payload: SECRET } }, 'Pushes');
    expect(text()).not.toContain(SECRET);
    expect(lines()[0]).toMatchObject({ context: 'Pushes', msg: 'created', push: { kind: 'text', payload: '[redacted]' } });
  });

  it('writes nothing below its level', () => {
    const { sut, text } = capture('warn');
    sut.log('started', 'Health');
    sut.debug('detail', 'Health');
    sut.request(request('/api/v2/version'), response(200), 0.004);
    expect(text()).toBe('');
  });
});

describe('AppLogger request lines', () => {
  it('log the request id, method and masked URL, the status and the time in ms', () => {
    const { sut, lines } = capture();
    sut.request(request(`/api/v2/pushes/${SECRET}?passphrase=${SECRET}`), response(200), 0.0123);
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 30,
        req: { id: 'req-7', method: 'GET', url: '/api/v2/pushes/:url_token' },
        res: { statusCode: 200 },
        responseTime: 12,
        msg: 'request completed',
      }),
    ]);
  });

  it('are errors for 5xx answers, and say when the client went away before the answer', () => {
    const { sut, lines } = capture();
    sut.request(request('/api/v2/pushes'), response(503), 0.001);
    sut.request(request('/api/v2/pushes'), response(200, false), 0.001);
    expect(lines().map((line) => [line.level, line.msg])).toEqual([
      [50, 'request completed'],
      [30, 'request aborted'],
    ]);
  });
});
