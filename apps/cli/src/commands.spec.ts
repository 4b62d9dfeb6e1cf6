import { TOKEN_LIFETIMES_DAYS } from '@app/auth';
import { COMMANDS, TOKEN_LIFETIMES_IN_HELP } from './commands';

describe('the commands table', () => {
  it("names in users:token's help the token lifetimes the users service accepts", () => {
    expect(TOKEN_LIFETIMES_IN_HELP).toBe(TOKEN_LIFETIMES_DAYS.join(', '));
    expect(COMMANDS['users:token'].flags?.['expires-in-days'].doc).toContain(TOKEN_LIFETIMES_IN_HELP);
  });
});
