import { v1Paths } from './api-v1.policies';

describe('v1Paths', () => {
  it("lists every route of v1's controllers as Nest joins them, once each", () => {
    const underEach = (path: string) => ['p', 'f', 'r'].map((collection) => `/${collection}/${path}`);
    const sut = v1Paths();
    expect([...sut].sort()).toEqual(
      [
        '/p.json',
        '/f.json',
        '/r.json',
        ...underEach('active.json'),
        ...underEach('expired.json'),
        ...underEach(':url_token.json'),
        ...underEach(':url_token/preview.json'),
        ...underEach(':url_token/audit.json'),
        '/api/v1/version',
      ].sort(),
    );
  });
});
