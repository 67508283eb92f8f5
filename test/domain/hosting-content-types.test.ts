import { expect } from 'chai';
import { contentTypeFor, DEFAULT_CONTENT_TYPE } from '../../domain/content-types.js';

describe('domain: hosting content types', () => {
  it('maps the usual dashboard files, text ones with utf-8', () => {
    const expected: Record<string, string> = {
      'index.html': 'text/html; charset=utf-8',
      'app.css': 'text/css; charset=utf-8',
      'app.js': 'text/javascript; charset=utf-8',
      'data.json': 'application/json; charset=utf-8',
      'rows.csv': 'text/csv; charset=utf-8',
      'chart.svg': 'image/svg+xml; charset=utf-8',
      'a.png': 'image/png',
      'a.jpg': 'image/jpeg',
      'a.jpeg': 'image/jpeg',
      'a.gif': 'image/gif',
      'a.webp': 'image/webp',
      'notes.txt': 'text/plain; charset=utf-8',
      'readme.md': 'text/markdown; charset=utf-8',
      'feed.xml': 'application/xml; charset=utf-8',
      'report.pdf': 'application/pdf',
      'f.woff': 'font/woff',
      'f.woff2': 'font/woff2',
      'favicon.ico': 'image/x-icon',
    };
    for (const [name, type] of Object.entries(expected)) expect(contentTypeFor(name), name).to.equal(type);
  });

  it('falls back to an opaque download for unknown or missing extensions', () => {
    for (const name of ['data.bin', 'makefile', 'trailing.', 'x.exe', '.hidden', 'a.constructor', 'a.__proto__']) {
      expect(contentTypeFor(name), name).to.equal(DEFAULT_CONTENT_TYPE);
    }
  });
});
