import { createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 1;
const ID_BYTES = 6;
const PAYLOAD_BYTES = 1 + ID_BYTES + ID_BYTES;
const MAC_BYTES = 16;

/**
 * Short-lived download links: `base64url(version | file id | expiry | MAC)`, the MAC an
 * HMAC-SHA256 (cut to 128 bits) over those and the push's id, with a key derived from the master
 * key. A link names one file of one push until it expires, and no other: altering any byte of it,
 * or using it on another push, fails the check.
 */
export class DownloadLinks {
  constructor(private readonly key: Buffer) {}

  sign(pushId: number, fileId: number, expiresAtMs: number): string {
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload[0] = VERSION;
    payload.writeUIntBE(fileId, 1, ID_BYTES);
    payload.writeUIntBE(Math.ceil(expiresAtMs / 1000), 1 + ID_BYTES, ID_BYTES);
    return Buffer.concat([payload, this.mac(payload, pushId)]).toString('base64url');
  }

  /** The file id the link names, or null when it is not a valid, unexpired link for this push. */
  verify(link: string, pushId: number, nowMs: number): number | null {
    if (!/^[\w-]{39}$/.test(link)) return null;
    const bytes = Buffer.from(link, 'base64url');
    // 39 characters carry 234 bits for 232: the last one's two spare bits must be as signed, so
    // that a link has one spelling and every altered character is refused.
    if (bytes.toString('base64url') !== link) return null;
    const payload = bytes.subarray(0, PAYLOAD_BYTES);
    if (payload[0] !== VERSION || !timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), this.mac(payload, pushId))) return null;
    if (payload.readUIntBE(1 + ID_BYTES, ID_BYTES) * 1000 <= nowMs) return null;
    return payload.readUIntBE(1, ID_BYTES);
  }

  private mac(payload: Buffer, pushId: number): Buffer {
    const push = Buffer.alloc(ID_BYTES);
    push.writeUIntBE(pushId, 0, ID_BYTES);
    return createHmac('sha256', this.key).update(payload).update(push).digest().subarray(0, MAC_BYTES);
  }
}
