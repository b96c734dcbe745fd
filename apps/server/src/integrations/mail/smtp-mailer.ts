import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config.ts';
import type { Mailer, MailMessage, MailOutcome } from '../../kernel/ports.ts';

/** How long nodemailer waits at each step: a stalled mail server must not hold mail forever. */
const TIMEOUT_MS = 15_000;

/** Mail over SMTP through nodemailer; the server, credentials and TLS come from the URL. */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(url: string, from: string) {
    this.transport = nodemailer.createTransport(
      {
        url,
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
      },
      { from },
    );
  }

  async send(message: MailMessage): Promise<MailOutcome> {
    try {
      await this.transport.sendMail({
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
      });
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** The configured mailer, or null when ARBITER_SMTP_URL is not set. */
export function createMailer(config: Config): Mailer | null {
  return config.smtpUrl === null ? null : new SmtpMailer(config.smtpUrl, config.smtpFrom);
}
