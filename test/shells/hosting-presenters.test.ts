import { expect } from 'chai';
import { listingRows, movedLocation } from '../../shells/presenters/hosting/hosting-presenters.js';
import { REDIRECT_STATUS } from '../../shells/koa/dashboards/dashboards-surface.js';

/** Where the dashboards host's redirects lead, made from ServeDashboard's outcomes; the outcomes are tested in test/application/hosting.test.ts. */
describe('hosting presenters', () => {
  const urls = { dashboardScheme: 'https', dashboardDomain: 'dash.example' };

  it('leads an alias to the canonical URL with the file name and the query kept', () => {
    const moved = { kind: 'moved', subdomain: 'ada', slug: 'three', filename: '', visibility: 'public' } as const;
    expect(movedLocation(urls, moved, '')).to.equal('https://ada.dash.example/three');
    expect(movedLocation(urls, moved, 'v=2')).to.equal('https://ada.dash.example/three?v=2');
    expect(movedLocation(urls, { ...moved, filename: 'app.css' }, 'v=2')).to.equal('https://ada.dash.example/three/app.css?v=2');
    expect(movedLocation(urls, { ...moved, filename: 'index.html' }, '')).to.equal('https://ada.dash.example/three');
  });

  it('opens the first file at its canonical URL, without the query', () => {
    const first = { kind: 'first_file', subdomain: 'acme', slug: 'report', filename: 'a.csv', visibility: 'private' } as const;
    expect(movedLocation(urls, first, 'x=1')).to.equal('https://acme.dash.example/report/a.csv');
  });

  it('sends a relative link to a path on the same host, query kept', () => {
    const linked = { kind: 'relative_link', slug: 'sales', filename: 'data.json', visibility: 'public' } as const;
    expect(movedLocation(urls, linked, '')).to.equal('/sales/data.json');
    expect(movedLocation(urls, linked, 'v=2')).to.equal('/sales/data.json?v=2');
  });

  it('answers an alias as moved for good and the others as temporary', () => {
    expect(REDIRECT_STATUS).to.deep.equal({ moved: 301, first_file: 302, relative_link: 302 });
  });

  it('lists dashboards with their canonical URLs, in the order given', () => {
    const updatedAt = new Date('2024-03-02T11:30:00.000Z');
    const rows = listingRows(urls, 'ada', [
      { slug: 'alpha', name: 'Alpha', updatedAt },
      { slug: 'zeta', name: 'Zeta <b>', updatedAt },
    ]);
    expect(rows).to.deep.equal([
      { slug: 'alpha', name: 'Alpha', url: 'https://ada.dash.example/alpha', updatedAt },
      { slug: 'zeta', name: 'Zeta <b>', url: 'https://ada.dash.example/zeta', updatedAt },
    ]);
  });
});
