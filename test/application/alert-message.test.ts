import { expect } from 'chai';
import { alertEmail, alertSlackMessage } from '../../application/delivery/alert-message.js';
import type { DeliveryContent } from '../../application/delivery/delivery-message.js';
import { refreshFailingNotice, refreshRecoveredNotice } from '../../application/alerts/refresh-notices.js';

const content: DeliveryContent = {
  dashboardName: 'Sales <b>',
  dashboardId: '00000000-0000-4000-8000-000000000001',
  slug: 'sales',
  versionId: '00000000-0000-4000-8000-000000000002',
  url: 'https://ada.dash.example.com/sales',
  refreshedAt: new Date('2026-11-27T08:00:00Z'),
  image: Buffer.from('89504e47', 'hex'),
  imageUrl: null,
  alerts: [],
  alert: null,
};
const notice = { id: 'high', status: 'firing' as const, value: '<img src=x onerror=alert(1)>', message: 'Sales <script>x</script> | <!channel>', changedAt: '2026-11-27T08:00:00.000Z' };

describe('application: alert notifications and refresh notices', () => {
  it('emails an alert with its message and value escaped, the picture inline', () => {
    const mail = alertEmail(content, notice, 'ada@example.com', 'https://app.example.com/_unsubscribe/t');
    expect(mail.subject).to.equal('Alert: Sales <script>x</script> | <!channel> (Sales <b>)');
    expect(mail.html).to.include('Alert: Sales &lt;script&gt;x&lt;/script&gt;').and.not.include('<script>').and.not.include('<img src=x');
    expect(mail.html).to.include('src="cid:dashboard-image@dashpub"');
    expect(mail.text).to.include('The alert "high" fired: the value is <img src=x onerror=alert(1)>.');
    expect(mail.unsubscribeUrl).to.equal('https://app.example.com/_unsubscribe/t');
    expect(alertEmail(content, { ...notice, status: 'ok', value: 3 }, 'a@example.com', 'u').subject).to.match(/^Cleared: /);
  });

  it('posts to Slack without markup that could mention a channel or forge a link', () => {
    const message = JSON.parse(alertSlackMessage(content, notice));
    const section = message.blocks[0].text.text as string;
    expect(section).to.not.match(/<!channel>|<script>|<img/);
    expect(section).to.include('<https://ada.dash.example.com/sales|Sales  b >');
    expect(message.blocks).to.have.length(1);
  });

  it('tells the owner of a failure streak and of its end, escaping the error', () => {
    const failing = refreshFailingNotice({ to: 'ada@example.com', dashboardName: 'Sales', pageUrl: 'https://app.example.com/dashboards/ada/sales#refresh', error: 'query "q": <b>boom</b>', since: new Date('2026-11-27T08:00:00Z') });
    expect(failing.subject).to.equal('Refresh failing: Sales');
    expect(failing.html).to.include('&lt;b&gt;boom&lt;/b&gt;').and.include('2026-11-27 08:00 UTC').and.not.include('<b>boom');
    expect(refreshRecoveredNotice({ to: 'ada@example.com', dashboardName: 'Sales', pageUrl: 'u', failures: 1 }).text).to.include('after 1 failed run in a row');
  });
});
