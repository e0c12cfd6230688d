import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const generateRsa = promisify(generateKeyPair);

/** The TXT record that proves an account controls a domain: one name per domain, one value per claim. */
export const CHALLENGE_LABEL = '_sitebase-challenge';
const CHALLENGE_PREFIX = 'sitebase-verification=';

/** At most 253 characters, labels of 1-63 letters, digits and inner hyphens (RFC 1035, RFC 1123). */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Why `domain` is not a hostname a sender may use, or null when it is one: lower case, two or
 * more labels, no trailing dot, no IP address (a top-level label of digits only), ≤ 253 chars.
 */
export function hostnameProblem(domain: string): string | null {
  if (domain.length > 253) return 'must be at most 253 characters';
  if (domain !== domain.toLowerCase()) return 'must be lower case';
  if (domain.endsWith('.')) return 'must not end with a dot';
  const labels = domain.split('.');
  if (labels.length < 2) return 'must be a domain name such as example.com';
  if (!labels.every((l) => LABEL.test(l))) return 'must be a domain name such as example.com';
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return 'must be a domain name, not an IP address';
  return null;
}

/** What a new claim on a domain is given: its challenge, its DKIM selector and key pair. */
export interface NewClaim {
  challengeToken: string;
  dkimSelector: string;
  dkimPrivateKey: string;
  /** base64 of the DER SubjectPublicKeyInfo: the `p=` of the DKIM record. */
  dkimPublicKey: string;
}

/**
 * A fresh claim: 24 random bytes of challenge (two accounts claiming one domain publish
 * different values), a selector of its own (so two claims' DKIM records do not collide) and an
 * RSA 2048 key pair made here; the private key is kept in PEM for nodemailer's signer.
 */
export async function newClaim(): Promise<NewClaim> {
  // Off the event loop: an RSA 2048 pair takes tens of milliseconds of CPU.
  const { publicKey, privateKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    challengeToken: randomBytes(24).toString('base64url'),
    dkimSelector: `sb${randomBytes(5).toString('hex')}`,
    dkimPrivateKey: privateKey,
    dkimPublicKey: publicKey.toString('base64'),
  };
}

export interface DnsRecord {
  type: 'TXT';
  name: string;
  value: string;
}

export function challengeRecord(domain: string, token: string): DnsRecord {
  return { type: 'TXT', name: `${CHALLENGE_LABEL}.${domain}`, value: `${CHALLENGE_PREFIX}${token}` };
}

export function dkimRecord(domain: string, selector: string, publicKey: string): DnsRecord {
  return { type: 'TXT', name: `${selector}._domainkey.${domain}`, value: `v=DKIM1; k=rsa; p=${publicKey}` };
}

/** TXT answers as resolveTxt gives them: each record's strings (of ≤ 255 bytes) joined. */
export function txtValues(answers: string[][]): string[] {
  return answers.map((chunks) => chunks.join('').trim());
}

/** Whether one of the published values is the challenge. */
export function hasChallenge(values: string[], expected: DnsRecord): boolean {
  return values.includes(expected.value);
}

/** Whether one of the published values is a DKIM RSA record with this public key (spaces ignored). */
export function hasDkimKey(values: string[], publicKey: string): boolean {
  return values.some((value) => {
    const tags = new Map<string, string>();
    for (const part of value.split(';')) {
      const at = part.indexOf('=');
      if (at > 0) tags.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).replace(/\s+/g, ''));
    }
    const v = tags.get('v');
    const k = tags.get('k');
    return (v === undefined || v === 'DKIM1') && (k === undefined || k === 'rsa') && tags.get('p') === publicKey;
  });
}
