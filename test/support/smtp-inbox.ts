import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail as the SMTP server received it, parsed. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The first link into the console (`…#token=…`) in the plain text. */
  readonly link: string | null;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package), keeping what
 * it receives, parsed with `mailparser`: what the service's mail
 * (`SVC_SMTP_URL`, P265) is tested against, end to end. No TLS, no
 * authentication: `smtp://127.0.0.1:<port>`.
 */
export class SmtpInbox {
  readonly received: ReceivedMail[] = [];
  private readonly waiting: Array<() => void> = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  static async start(): Promise<SmtpInbox> {
    let inbox: SmtpInbox | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, done) {
        simpleParser(stream)
          .then((mail) => {
            inbox?.keep(mail);
            done();
          })
          .catch(done);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    inbox = new SmtpInbox(server, `smtp://127.0.0.1:${port}`);
    return inbox;
  }

  private keep(mail: ParsedMail): void {
    const text = mail.text ?? '';
    const to = Array.isArray(mail.to) ? mail.to[0]?.text : mail.to?.text;
    this.received.push({
      from: mail.from?.text ?? '',
      to: to ?? '',
      subject: mail.subject ?? '',
      text,
      html: typeof mail.html === 'string' ? mail.html : '',
      link: /https?:\/\/\S+#token=\S+/.exec(text)?.[0] ?? null,
    });
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** Every mail received so far for `to`. */
  mailFor(to: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.toLowerCase().includes(to.toLowerCase()));
  }

  /** The next mail for `to` beyond the `already` received earlier; fails after `timeoutMs`. */
  async nextMailFor(to: string, already = this.mailFor(to).length, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = this.mailFor(to)[already];
      if (mail) return mail;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail for ${to} within ${timeoutMs} ms`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.waiting.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  end(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
