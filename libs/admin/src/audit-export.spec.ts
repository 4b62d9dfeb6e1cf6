import { csvField, csvLine, EXPORT_FIELDS, jsonLine } from './audit-export';
import type { TrailEntry } from './audit-trail';

const entry: TrailEntry = {
  id: 'push-7',
  at: '2026-11-27T06:00:00.000Z',
  source: 'push',
  kind: 'view',
  person: 'kim@example.com',
  push_id: 7,
  push_token_start: 'abcd',
  request_id: null,
  request_token_start: null,
  administrator: null,
  ip: '203.0.113.9',
  user_agent: '=HYPERLINK("http://evil.example/")',
  referrer: '',
  detail: { recipients: 'a@example.com,b@example.com' },
};

describe('audit export lines', () => {
  it('quotes what holds a comma, quote or line break, and disarms what a spreadsheet would run', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(7)).toBe('7');
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"\nthen')).toBe('"say ""hi""\nthen"');
    for (const start of ['=', '+', '-', '@', '\t']) expect(csvField(`${start}1+1`)).toBe(`'${start}1+1`);
    expect(csvField({ a: 1 })).toBe('"{""a"":1}"');
  });

  it('writes the fields in the documented order, in CSV and as JSON', () => {
    expect(csvLine(entry)).toBe(
      'push-7,2026-11-27T06:00:00.000Z,push,view,kim@example.com,7,abcd,,,,203.0.113.9,"\'=HYPERLINK(""http://evil.example/"")",,"{""recipients"":""a@example.com,b@example.com""}"\r\n',
    );
    const json = JSON.parse(jsonLine(entry)) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([...EXPORT_FIELDS]);
    expect(json).toEqual(entry);
  });
});
