import type { FieldCipher } from '@app/crypto';
import type { AttachedFile } from '@app/files';
import type { StoredRequest } from './requests.repository';

/**
 * What the responder's page shows on a GET in place of the request: the passphrase form before
 * anything else; then that it was answered already, or a button (the retrieval step).
 */
export type ResponderEntry = 'passphrase' | 'answered' | 'step';

/** What the responder sees of an open request, once past its passphrase: never the note, the name or anything of an answer. */
export interface ResponderView {
  url_token: string;
  /** The requester's message: what to send. */
  message: string;
  /** The requester's address, only when the request shows it (include_requestor). */
  requester_email: string | null;
  passphrase_protected: boolean;
  /** Whether the answer may come with files (the request takes them, and file pushes are on). */
  takes_files: boolean;
  /** The requester's own files for the responder, with short-lived download links (paths on this host). */
  files: { filename: string; content_type: string; size: number; url: string }[];
  /** Proof that the passphrase was given, for the answer form (see ResponderGrants); none without a passphrase. */
  grant?: string;
}

export function mapResponderView(request: StoredRequest, message: string, takesFiles: boolean, files: AttachedFile[], grant?: string): ResponderView {
  return {
    url_token: request.urlToken,
    message,
    requester_email: request.includeRequestor ? request.ownerEmail : null,
    passphrase_protected: request.passphraseProtected,
    takes_files: takesFiles,
    files: files.map((file) => ({
      filename: file.filename,
      content_type: file.contentType,
      size: file.size,
      url: `/api/v2/requests/${request.urlToken}/files/${file.link}`,
    })),
    grant,
  };
}

/**
 * The responder's page asks for the passphrase once: the form that shows the request carries a
 * grant, sealed (AES-256-GCM, bound to the request's token) and dated, which the answer form
 * sends back instead of the passphrase. So the passphrase is never written into a page, and a
 * multipart answer is checked (by its grant, a hidden field before the files) before a byte of
 * its files is stored. A grant works until the earlier of its lifetime and the request's close.
 */
export class ResponderGrants {
  constructor(
    private readonly cipher: FieldCipher,
    private readonly lifetimeMs: number,
  ) {}

  issue(request: StoredRequest, now: number): string {
    const until = Math.min(now + this.lifetimeMs, request.closeAfterAt);
    return this.cipher.encrypt(String(until), contextOf(request)).toString('base64url');
  }

  /** Whether `grant` was issued for this request and is still good; anything else (forged, another request's, old) is not. */
  admits(request: StoredRequest, grant: string, now: number): boolean {
    try {
      return Number(this.cipher.decrypt(Buffer.from(grant, 'base64url'), contextOf(request))) > now;
    } catch {
      return false;
    }
  }
}

const contextOf = (request: StoredRequest): string => `request-responder-grant:${request.urlToken}`;
