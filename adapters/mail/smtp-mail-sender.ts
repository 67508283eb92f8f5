import nodemailer, { type Transporter } from 'nodemailer';
import type { MailSender, OutgoingMail } from '../../application/ports/delivery-ports.js';

/** SMTP with nodemailer (SMTP_URL, MAIL_FROM); off, and saying so, while either is unset. */
export class SmtpMailSender implements MailSender {
  private transport: Transporter | undefined;

  constructor(
    private readonly smtpUrl: string | null,
    private readonly from: string | null,
  ) {}

  get enabled(): boolean {
    return this.smtpUrl !== null && this.from !== null;
  }

  async send(mail: OutgoingMail): Promise<void> {
    if (!this.enabled) throw new Error('email delivery is off: SMTP_URL and MAIL_FROM are not set');
    // Short timeouts: a job that waits on a dead server holds a worker; the queue retries it later.
    this.transport ??= nodemailer.createTransport({ url: this.smtpUrl!, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
    const headers: Record<string, string> = {};
    if (mail.unsubscribeUrl) {
      headers['List-Unsubscribe'] = `<${mail.unsubscribeUrl}>`;
      headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    }
    const attachments = mail.image
      ? [
          { filename: mail.image.filename, content: mail.image.content, cid: mail.image.cid, contentDisposition: 'inline' as const },
          { filename: mail.image.filename, content: mail.image.content, contentDisposition: 'attachment' as const },
        ]
      : [];
    await this.transport.sendMail({ from: this.from!, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers, attachments });
  }

  close(): void {
    this.transport?.close();
  }
}
