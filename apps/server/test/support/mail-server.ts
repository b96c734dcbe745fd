import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface LocalMailServer {
  /** `smtp://127.0.0.1:<port>` for ARBITER_SMTP_URL. */
  url: string;
  /** Every mail accepted, parsed, with the envelope's recipients. */
  received: Array<{ envelopeTo: string[]; mail: ParsedMail }>;
  /** When set, the server answers DATA with this 5xx reply instead of accepting the mail. */
  refuseWith: string | null;
  close(): Promise<void>;
}

/** A real SMTP server (npm smtp-server) on a free loopback port that keeps what it receives. */
export async function startMailServer(): Promise<LocalMailServer> {
  const local: LocalMailServer = {
    url: '',
    received: [],
    refuseWith: null,
    close: () => new Promise((done) => server.close(() => done())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    async onData(stream, session, callback) {
      const mail = await simpleParser(stream);
      if (local.refuseWith !== null) {
        const refusal = Object.assign(new Error(local.refuseWith), { responseCode: 554 });
        callback(refusal);
        return;
      }
      local.received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), mail });
      callback();
    },
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  const { port } = server.server.address() as AddressInfo;
  local.url = `smtp://127.0.0.1:${port}`;
  return local;
}
