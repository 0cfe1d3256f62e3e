/**
 * AES-256-GCM for secret config values. Layout: version byte, 12-byte IV,
 * 16-byte tag, ciphertext. The organization id is bound as associated data,
 * so a ciphertext copied to another organization's row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;

export function encryptSecret(key: Buffer, plaintext: string, organizationId: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(organizationId, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

export function decryptSecret(key: Buffer, sealed: Buffer, organizationId: string): string {
  if (sealed[0] !== VERSION) throw new Error('unknown secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
  decipher.setAAD(Buffer.from(organizationId, 'utf8'));
  decipher.setAuthTag(sealed.subarray(13, 29));
  return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
}
