import { cleanContentType, cleanFilename } from './file-attachments.service';

describe('cleanFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['Überweisung 2026.pdf', 'Überweisung 2026.pdf'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['C:\\Users\\a\\secret.txt', 'C:_Users_a_secret.txt'],
    ['bad\u0000name\r\n.txt', 'badname.txt'],
    // A right-to-left override would show "invoice_fdp.exe" as "invoice_exe.pdf".
    ['invoice_\u202Efdp.exe', 'invoice_fdp.exe'],
    ['   spaced.txt  ', 'spaced.txt'],
    ['', 'file'],
    ['..', 'file'],
    ['\u0007', 'file'],
  ])('keeps %j as %j', (given, kept) => {
    expect(cleanFilename(given)).toBe(kept);
  });

  it('keeps 255 characters, counting each emoji as one', () => {
    expect([...cleanFilename('😀'.repeat(300))]).toHaveLength(255);
  });
});

describe('cleanContentType', () => {
  it.each([
    ['application/pdf', 'x.bin', 'application/pdf'],
    ['Application/PDF; charset=binary', 'x.bin', 'application/pdf'],
    ['', 'photo.png', 'image/png'],
    ['application/octet-stream', 'notes.txt', 'text/plain'],
    ['text/plain', 'photo.jpg', 'image/jpeg'],
    ['text/plain', 'no-extension', 'text/plain'],
    ['', 'no-extension', 'application/octet-stream'],
    ['text/html\r\nX-Injected: 1', 'page.bin', 'application/octet-stream'],
    ['not a type', 'x.unknownext', 'application/octet-stream'],
  ])('takes %j for %j as %j', (given, filename, type) => {
    expect(cleanContentType(given, filename)).toBe(type);
  });
});
