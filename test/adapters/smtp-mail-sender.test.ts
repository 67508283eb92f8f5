import { expect } from 'chai';
import { SmtpMailSender } from '../../adapters/mail/smtp-mail-sender.js';
import { deliveryEmail, type DeliveryContent } from '../../application/delivery/delivery-message.js';
import { freePort } from '../support/server.js';
import { startSmtpReceiver, type MailReceiver } from '../support/delivery-receivers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const content: DeliveryContent = {
  dashboardName: 'Sales <2026>',
  dashboardId: '00000000-0000-4000-8000-000000000001',
  slug: 'sales',
  versionId: '00000000-0000-4000-8000-000000000002',
  url: 'https://ada.dash.example.com/sales',
  refreshedAt: new Date('2026-11-27T08:00:00Z'),
  image: PNG,
  imageUrl: 'https://ada.dash.example.com/_image/sales.png',
  alerts: [],
  alert: null,
};

/** nodemailer against a real SMTP server (smtp-server), read back with mailparser. */
describe('adapters: SmtpMailSender', function () {
  this.timeout(30_000);
  let smtp: MailReceiver;
  before(async () => {
    smtp = await startSmtpReceiver();
  });
  after(() => smtp.close());

  it('embeds the image by cid, attaches it too, and escapes the dashboard\'s name', async () => {
    const sender = new SmtpMailSender(smtp.url, 'dashpub <reports@example.com>');
    await sender.send(deliveryEmail(content, 'ada@example.com', 'https://app.example.com/_unsubscribe/abc'));
    sender.close();
    const mail = smtp.mails.at(-1)!;
    const [inline, attached] = [mail.attachments.find((a) => a.related), mail.attachments.find((a) => a.contentDisposition === 'attachment')];
    expect(inline?.cid).to.equal('dashboard-image@dashpub');
    expect(mail.html).to.include('src="cid:dashboard-image@dashpub"');
    expect(inline?.content.equals(PNG)).to.equal(true);
    expect(attached?.filename).to.equal('sales.png');
    expect(attached?.content.equals(PNG)).to.equal(true);
    expect(mail.html).to.include('Sales &lt;2026&gt;').and.not.include('Sales <2026>');
    expect(mail.subject).to.equal('Sales <2026>: refreshed 2026-11-27 08:00 UTC');
  });

  it('is off, and says so, while SMTP_URL or MAIL_FROM is unset', async () => {
    const off = new SmtpMailSender(null, 'reports@example.com');
    expect(off.enabled).to.equal(false);
    let error: unknown;
    await off.send(deliveryEmail(content, 'ada@example.com', 'https://x/_unsubscribe/a')).catch((err: unknown) => (error = err));
    expect((error as Error).message).to.include('SMTP_URL and MAIL_FROM are not set');
  });

  it('fails with the connection\'s error when the SMTP server is down', async () => {
    const sender = new SmtpMailSender(`smtp://127.0.0.1:${await freePort()}`, 'reports@example.com');
    let error: unknown;
    await sender.send(deliveryEmail(content, 'ada@example.com', 'https://x/_unsubscribe/a')).catch((err: unknown) => (error = err));
    sender.close();
    expect((error as Error).message).to.match(/ECONNREFUSED/);
  });
});
