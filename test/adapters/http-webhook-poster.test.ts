import { expect } from 'chai';
import http from 'node:http';
import { HttpWebhookPoster, WEBHOOK_ADDRESS_REFUSED } from '../../adapters/http/http-webhook-poster.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/delivery-receivers.js';

const failure = async (work: Promise<unknown>): Promise<Error> => {
  try {
    await work;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
};

/** The webhook poster's outbound address policy, judged again at send time, with no redirects and a timeout. */
describe('adapters: HttpWebhookPoster', function () {
  this.timeout(30_000);
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(() => receiver.close());

  it('judges the address again when it sends: a name that now resolves to loopback is refused (DNS rebinding)', async () => {
    let answers = ['93.184.215.14'];
    const poster = new HttpWebhookPoster({ allowPrivate: false, resolve: async () => answers, localAddresses: () => [] });
    await poster.check(`http://hooks.example:${receiver.port}/x`);
    answers = ['127.0.0.1'];
    const refused = await failure(poster.post(`http://hooks.example:${receiver.port}/x`, '{}', {}));
    expect(refused.message).to.equal(WEBHOOK_ADDRESS_REFUSED);
    // One public and one private answer is refused too: the socket may connect to either.
    answers = ['93.184.215.14', '10.0.0.5'];
    expect((await failure(poster.check('http://hooks.example/x'))).message).to.equal(WEBHOOK_ADDRESS_REFUSED);
    expect(receiver.received).to.have.length(0);
  });

  it('refuses this machine\'s own addresses and, even with private addresses allowed, the service\'s own ports', async () => {
    const poster = new HttpWebhookPoster({ allowPrivate: false, resolve: async () => ['198.51.100.7'], localAddresses: () => ['203.0.113.9'] });
    expect((await failure(poster.check('http://203.0.113.9/hook'))).message).to.equal(WEBHOOK_ADDRESS_REFUSED);
    const allowed = new HttpWebhookPoster({ allowPrivate: true, ownPorts: () => [8787, 5432] });
    expect((await failure(allowed.check('http://127.0.0.1:5432/'))).message).to.equal(WEBHOOK_ADDRESS_REFUSED);
    await allowed.check(`http://127.0.0.1:${receiver.port}/`);
  });

  it('does not follow a redirect and gives up after its timeout', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      // '/hang' never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const poster = new HttpWebhookPoster({ allowPrivate: true, timeoutMs: 300 });
    expect((await failure(poster.post(`http://127.0.0.1:${port}/redirect`, '{}', {}))).message).to.equal('the webhook answered a redirect (HTTP 302), which is not followed');
    expect((await failure(poster.post(`http://127.0.0.1:${port}/hang`, '{}', {}))).message).to.equal('the webhook did not answer within 0.3 seconds');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
