import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'arbiter-signature';
/** Signatures older or newer than this are refused, so a captured request cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signBusinessEvent(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** `Arbiter-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (docs/decisions/ingest.md#business-events). */
export function verifyBusinessSignature(
  header: string | undefined,
  secret: string,
  body: string,
  now: Date,
): SignatureCheck {
  if (header === undefined) return { ok: false, reason: 'the Arbiter-Signature header is missing' };
  const parts = new Map(
    header.split(',').map((p) => {
      const [k, ...v] = p.trim().split('=');
      return [k ?? '', v.join('=')] as const;
    }),
  );
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d+$/.test(t) || !v1 || !/^[0-9a-f]{64}$/i.test(v1)) {
    return { ok: false, reason: 'the Arbiter-Signature header is not "t=<unix seconds>,v1=<hex>"' };
  }
  if (Math.abs(now.getTime() / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) {
    return {
      ok: false,
      reason: `the signature timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from now`,
    };
  }
  const expected = Buffer.from(
    createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'),
    'hex',
  );
  const given = Buffer.from(v1, 'hex');
  return timingSafeEqual(expected, given)
    ? { ok: true }
    : { ok: false, reason: 'the signature does not match the body' };
}
