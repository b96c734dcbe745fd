import type { Database } from '../db/connect.ts';
import type { Mailer } from '../kernel/ports.ts';
import { type ContactMessage, markContactMail } from './contact.ts';

const KIND_LABELS: Record<string, string> = {
  sales: 'Sales',
  design_partner: 'Design partner',
  other: 'Other',
};

/** The mail the platform owners receive for one contact message. */
export function contactMail(message: ContactMessage) {
  const from = message.company ? `${message.name} (${message.company})` : message.name;
  return {
    subject: `[Arbiter contact] ${KIND_LABELS[message.kind] ?? message.kind}: ${from}`,
    text: [
      `Name: ${message.name}`,
      `Email: ${message.email}`,
      `Company: ${message.company ?? '—'}`,
      `Kind: ${message.kind}`,
      `Received: ${message.createdAt.toISOString()}`,
      '',
      message.message,
    ].join('\n'),
    replyTo: message.email,
  };
}

/**
 * Mails each stored contact message to the platform owners in the background: the sender has
 * their 202 once the message is stored, and a mail failure only marks the stored message.
 */
export class ContactNotifier {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer | null,
    private readonly recipients: readonly string[],
    private readonly log: { warn(o: object, m: string): void },
  ) {}

  /** Whether a stored message will be mailed (`pending`) or only kept for the inbox. */
  get initialStatus(): 'pending' | 'not_configured' {
    return this.mailer === null || this.recipients.length === 0 ? 'not_configured' : 'pending';
  }

  notify(message: ContactMessage): void {
    if (this.initialStatus !== 'pending') return;
    const delivery: Promise<void> = this.deliver(message).finally(() =>
      this.inFlight.delete(delivery),
    );
    this.inFlight.add(delivery);
  }

  private async deliver(message: ContactMessage): Promise<void> {
    const outcome = await (this.mailer as Mailer).send({
      to: [...this.recipients],
      ...contactMail(message),
    });
    if (!outcome.ok)
      this.log.warn({ contact_id: message.id, reason: outcome.reason }, 'contact mail failed');
    try {
      await markContactMail(
        this.db,
        message.id,
        outcome.ok ? 'sent' : 'failed',
        outcome.ok ? null : outcome.reason,
      );
    } catch (err) {
      // The message itself is stored; only its mail status stays `pending`.
      this.log.warn({ err, contact_id: message.id }, 'contact mail status not recorded');
    }
  }

  /** Resolves once every mail under way has been attempted (shutdown and tests wait for it). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
