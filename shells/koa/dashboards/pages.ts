import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../domain/html.js';

/**
 * The pages the dashboards host renders itself (404, listing, sign-in trouble): no script, no outside resource.
 * Each names the product (SERVICE_DISPLAY_NAME) in its title and above its card.
 */

const STYLE = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#656d76;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#8d96a0;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4493f8}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:44rem;margin:12vh auto;padding:0 1.25rem}
.brand{font-weight:600;color:var(--muted);margin:0 0 .75rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:2rem}
.code{font:600 .8rem/1 ui-monospace,monospace;color:var(--muted);letter-spacing:.08em;text-transform:uppercase}
h1{font-size:1.6rem;margin:.4rem 0 .6rem}
p{color:var(--muted);margin:.4rem 0}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
ul{list-style:none;margin:1.2rem 0 0;padding:0}
li{display:flex;justify-content:space-between;gap:1rem;padding:.7rem 0;border-top:1px solid var(--line)}
li span{color:var(--muted);font-size:.85rem;white-space:nowrap}
label{display:block;font-weight:600;margin:1.2rem 0 .4rem}
input[type=password]{width:100%;font:inherit;padding:.55rem .7rem;border:1px solid var(--muted);border-radius:8px;background:var(--card);color:var(--fg)}
button{margin-top:1rem;font:inherit;font-weight:600;padding:.55rem 1.2rem;border:0;border-radius:8px;background:var(--accent);color:#fff;cursor:pointer}
@media (prefers-color-scheme:dark){button{color:#0d1117}}
.error{color:var(--fg);border-left:4px solid #cf222e;padding-left:.7rem}
`;

const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** Strict: the one inline stylesheet above, nothing else; these pages never frame or get framed. */
export const SERVICE_PAGE_CSP = `default-src 'none'; style-src ${STYLE_SOURCE}; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** The same, for a page whose one form posts back to this host (the share link's password page). */
export const FORM_PAGE_CSP = SERVICE_PAGE_CSP.replace(`form-action 'none'`, `form-action 'self'`);

export function page(displayName: string, title: string, content: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(`${title} · ${displayName}`)}</title><style>${STYLE}</style></head>` +
    `<body><main><div class="brand">${escapeHtml(displayName)}</div><div class="card">${content}</div></main></body></html>\n`
  );
}

export function notFoundPage(displayName: string): string {
  return page(
    displayName,
    'Dashboard not found',
    `<div class="code">404 · Not found</div><h1>Dashboard not found</h1>` +
      `<p>There is no dashboard at this address. Check the link, or ask its owner for the current one.</p>` +
      `<p><a href="/">See this account's public dashboards</a></p>`,
  );
}

export function listingPage(displayName: string, subdomain: string, dashboards: Array<{ slug: string; name: string; url: string; updatedAt: Date }>): string {
  const items = dashboards
    .map(
      (d) =>
        `<li><a href="${escapeHtml(d.url)}">${escapeHtml(d.name)}</a>` +
        `<span>/${escapeHtml(d.slug)} · ${escapeHtml(d.updatedAt.toISOString().slice(0, 10))}</span></li>`,
    )
    .join('');
  return page(
    displayName,
    `${subdomain} · dashboards`,
    `<div class="code">${escapeHtml(subdomain)}</div><h1>Public dashboards</h1>` +
      (dashboards.length === 0 ? `<p>No public dashboards here yet.</p>` : `<ul>${items}</ul>`),
  );
}

export function signInFailedPage(displayName: string, returnPath: string): string {
  return page(
    displayName,
    'Sign-in link expired',
    `<div class="code">400 · Sign-in</div><h1>This sign-in link has expired</h1>` +
      `<p>It was already used, is too old, or was started in another browser.</p>` +
      `<p><a href="${escapeHtml(returnPath)}">Open the dashboard again</a></p>`,
  );
}

export function errorPage(displayName: string): string {
  return page(
    displayName,
    'Temporarily unavailable',
    `<div class="code">503 · Unavailable</div><h1>Temporarily unavailable</h1><p>Please try again in a moment.</p>`,
  );
}

/** The web app's answer to a viewer sign-in link it cannot use (`message` says why). */
export function badViewerLinkPage(displayName: string, message: string): string {
  return page(
    displayName,
    'Bad link',
    `<h1>This link cannot be used</h1>` +
      `<p>This dashboard sign-in link is not valid: ${escapeHtml(message)}.</p>`,
  );
}
