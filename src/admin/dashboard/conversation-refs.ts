import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { ConversationKey } from '../../store/records.ts';

/** Seals a conversation's key into the opaque reference of its page's URL, and opens one. */
export interface ConversationRefs {
  seal(key: ConversationKey): string;
  /** The key a reference names, or undefined for one that is malformed or was tampered with. */
  open(ref: string): ConversationKey | undefined;
}

const ivBytes = 12;
const tagBytes = 16;

/**
 * References to conversations for the dashboard's URLs (`/admin/conversations/<ref>`): an
 * AES-256-GCM sealing of `location\nphone`, so a whole phone number never lands in a reverse
 * proxy's access log, and a reference cannot be forged or altered into another conversation's.
 * The key is derived from the admin token (HMAC-SHA256), so every process opens every other's
 * references and a new token retires them; without a token (`replyflow dev`), a random key of
 * this process.
 */
export function conversationRefs(adminToken: string | undefined): ConversationRefs {
  const key = adminToken
    ? createHmac('sha256', adminToken).update('replyflow-conversation-ref').digest()
    : randomBytes(32);
  return {
    seal({ location, phone }) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([
        cipher.update(`${location}\n${phone}`, 'utf8'),
        cipher.final(),
      ]);
      return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
    },
    open(ref) {
      if (!/^[\w-]{1,600}$/.test(ref)) return undefined;
      const bytes = Buffer.from(ref, 'base64url');
      if (bytes.length <= ivBytes + tagBytes) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, ivBytes));
      decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
      let text: string;
      try {
        text = Buffer.concat([
          decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        // The tag does not match: altered, or sealed under another token.
        return undefined;
      }
      const cut = text.indexOf('\n');
      if (cut <= 0) return undefined;
      return { location: text.slice(0, cut), phone: text.slice(cut + 1) };
    },
  };
}
