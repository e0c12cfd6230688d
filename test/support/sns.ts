import { Global, Module, Type } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snsCanonicalString, SnsMessage } from '../../src/email/bounces/providers/ses';
import { SNS_HTTP_CLIENT, SnsHttpClient } from '../../src/email/bounces/providers/sns-client';

/**
 * Amazon SNS for tests (docs/deliverability.md, "Amazon SES"): a signing certificate the test makes
 * (an RSA key and a self-signed certificate from the openssl CLI; never an AWS key), messages
 * signed as SNS signs them, and a fake SNS client that serves that certificate and records every
 * URL the app asked for.
 */

export interface SnsSigner {
  /** The certificate's PEM text. */
  certificate: string;
  /** The private key's PEM text. */
  privateKey: string;
}

/** A fresh RSA key and a self-signed certificate valid from now for `days`. */
export function makeSnsSigner(days = 2): SnsSigner {
  const dir = mkdtempSync(join(tmpdir(), 'sns-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-subj',
        '/CN=sns.test',
        '-days',
        String(days),
      ],
      { stdio: 'ignore' },
    );
    return { certificate: readFileSync(cert, 'utf8'), privateKey: readFileSync(key, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const SNS_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ses-feedback';
export const SNS_CERT_URL = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem';

export interface SnsOptions {
  version?: '1' | '2';
  signer?: SnsSigner;
  topic?: string;
  certUrl?: string;
  at?: Date;
  messageId?: string;
  subject?: string;
}

/** An SNS message of `type`, signed as SNS signs it (the canonical string, SHA1 or SHA256 with RSA). */
export function signedSns(
  signer: SnsSigner,
  type: SnsMessage['Type'],
  message: string,
  opts: SnsOptions & { subscribeUrl?: string } = {},
): Record<string, string> {
  const version = opts.version ?? '2';
  const body: Record<string, string> = {
    Type: type,
    MessageId: opts.messageId ?? randomUUID(),
    TopicArn: opts.topic ?? SNS_TOPIC,
    Message: message,
    Timestamp: (opts.at ?? new Date()).toISOString(),
    SignatureVersion: version,
    SigningCertURL: opts.certUrl ?? SNS_CERT_URL,
  };
  if (opts.subject !== undefined) body.Subject = opts.subject;
  if (type !== 'Notification') {
    body.Token = 'token-' + randomUUID();
    body.SubscribeURL =
      opts.subscribeUrl ??
      `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(body.TopicArn)}&Token=${body.Token}`;
  }
  const canonical = snsCanonicalString({ ...body, Signature: '' } as unknown as SnsMessage);
  body.Signature = sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(canonical), signer.privateKey).toString(
    'base64',
  );
  body.UnsubscribeURL = 'https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe';
  return body;
}

/** The fake SNS: `certificates` by URL; `confirmFails` makes a SubscribeURL fail; every URL asked is recorded. */
export interface FakeSns {
  module: Type;
  certificates: Map<string, string>;
  fetched: string[];
  confirmed: string[];
  confirmFails: boolean;
}

export function fakeSns(): FakeSns {
  const sns: FakeSns = {
    module: undefined as unknown as Type,
    certificates: new Map(),
    fetched: [],
    confirmed: [],
    confirmFails: false,
  };
  const client: SnsHttpClient = {
    certificate(url) {
      sns.fetched.push(url);
      const pem = sns.certificates.get(url);
      return pem ? Promise.resolve(pem) : Promise.reject(new Error('404'));
    },
    confirmSubscription(url) {
      sns.fetched.push(url);
      if (sns.confirmFails) return Promise.reject(new Error('503'));
      sns.confirmed.push(url);
      return Promise.resolve();
    },
  };
  @Global()
  @Module({ providers: [{ provide: SNS_HTTP_CLIENT, useValue: client }], exports: [SNS_HTTP_CLIENT] })
  class FakeSnsModule {}
  sns.module = FakeSnsModule;
  return sns;
}
