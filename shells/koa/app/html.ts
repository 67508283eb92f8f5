import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../domain/html.js';
import { DASHBOARDS_PAGES_STYLE } from './dashboards-style.js';

export { escapeHtml };

/** Tagged template that escapes every interpolation unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | null | undefined | false | Html[];

const render = (part: Part): string =>
  part === null || part === undefined || part === false
    ? ''
    : Array.isArray(part)
      ? part.map(render).join('')
      : part instanceof Html
        ? part.value
        : escapeHtml(String(part));

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return new Html(strings.reduce((out, chunk, i) => out + chunk + (i < parts.length ? render(parts[i]) : ''), ''));
}

const BASE_STYLE = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#f3f5f8;--card:#fff;--line:#d1d9e0;--soft:#f6f8fa;
--accent:#1f6feb;--accent-fg:#fff;--warn-bg:#fff8c5;--warn-line:#d4a72c;--bad:#cf222e;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--card:#151b23;--line:#3d444d;--soft:#0d1117;
--accent:#4493f8;--accent-fg:#0d1117;--warn-bg:#2f2a13;--warn-line:#9e6a03;--bad:#f85149;--ok:#3fb950}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:32rem;margin:8vh auto 4rem;padding:0 1rem}
main.wide{max-width:44rem}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:650;letter-spacing:.01em;margin:0 0 1rem .2rem;color:var(--fg)}
.brand .mark{width:1.4rem;height:1.4rem;border-radius:6px;background:var(--accent);display:inline-block}
.card{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:1.75rem;box-shadow:0 1px 3px rgba(0,0,0,.04)}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .35rem}
h2{font-size:1rem;margin:1.6rem 0 .6rem}
p{margin:.35rem 0}
.muted{color:var(--muted)}
.small{font-size:.85rem}
a{color:var(--accent)}
code,.mono{font:.85rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
pre{font:.85rem/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);border:1px solid var(--line);border-radius:8px;padding:.65rem .8rem;margin:.3rem 0 .9rem;overflow-x:auto}
.snippet-head{display:flex;justify-content:space-between;align-items:flex-end;gap:.6rem;margin-top:.8rem}
button.copy{padding:.15rem .7rem;font-size:.8rem}
p code,li code{word-break:normal;overflow-wrap:anywhere}
h3{font-size:.95rem;margin:1.2rem 0 .4rem}
ol{padding-left:1.3rem}
dl{margin:1.25rem 0;border:1px solid var(--line);border-radius:10px;overflow:hidden}
dl div{display:grid;grid-template-columns:6.5rem 1fr;gap:.75rem;padding:.65rem .9rem;border-top:1px solid var(--line)}
dl div:first-child{border-top:0}
dt{color:var(--muted);font-size:.85rem;padding-top:.1rem}
dd{margin:0;min-width:0}
.note{font-size:.85rem;color:var(--muted);margin-top:.25rem}
.client-host{font-size:1.05rem;margin:.1rem 0 .5rem}
.warn{background:var(--warn-bg);border:1px solid var(--warn-line);border-radius:8px;padding:.5rem .7rem;font-size:.85rem;margin-top:.4rem}
.error{border:1px solid var(--bad);color:var(--bad);border-radius:8px;padding:.6rem .8rem;margin:1rem 0}
fieldset{border:0;margin:1.25rem 0 0;padding:0}
legend{font-weight:600;margin-bottom:.5rem;padding:0}
.choice{display:flex;gap:.7rem;align-items:flex-start;border:1px solid var(--line);border-radius:10px;padding:.7rem .9rem;margin:.45rem 0;cursor:pointer}
.choice:has(input:checked){border-color:var(--accent);box-shadow:0 0 0 1px var(--accent)}
.choice input{margin-top:.3rem}
.choice span{display:block}
label.field,form>label{display:block;margin:.9rem 0 .3rem;font-weight:600;font-size:.9rem}
input:not([type]),input[type=email],input[type=password],input[type=text],input[type=url],select{width:100%;font:inherit;padding:.55rem .7rem;border:1px solid var(--line);border-radius:8px;background:var(--soft);color:var(--fg)}
input:focus-visible,button:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.actions{display:flex;gap:.6rem;justify-content:flex-end;margin-top:1.5rem;flex-wrap:wrap}
.actions.decide{flex-direction:row-reverse;justify-content:flex-start}
button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button.link{border:0;background:none;padding:0;color:var(--accent);font-weight:inherit;text-decoration:underline;cursor:pointer}
form.inline{display:inline;white-space:nowrap}
a.button{display:block;text-align:center;text-decoration:none;font-weight:600;padding:.55rem 1.1rem;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--fg)}
.or{text-align:center;margin:1rem 0 0}
.full{width:100%;margin-top:1.1rem}
.who{display:flex;justify-content:space-between;align-items:center;gap:1rem;background:var(--soft);border:1px solid var(--line);border-radius:10px;padding:.6rem .9rem;font-size:.9rem}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:left;padding:.5rem .4rem;border-top:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;border-top:0}
.badge{display:inline-block;font-size:.75rem;font-weight:600;border:1px solid var(--line);border-radius:999px;padding:0 .5rem;color:var(--muted)}
.badge.ok{color:var(--ok);border-color:var(--ok)}
footer{margin-top:1.5rem;padding-top:1rem;border-top:1px solid var(--line);text-align:center}
.spaced{margin-top:1rem}
`;

/** The one stylesheet of every app page: the base above plus the dashboards pages' own rules. */
const STYLE = BASE_STYLE + DASHBOARDS_PAGES_STYLE;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The app pages' policy: no script at all, the one inline stylesheet, never framed. `formTargets`
 * are origins a form on the page may end up at through redirects (the client's redirect URI after
 * consent, the dashboards hosts after a viewer sign-in).
 */
export function contentSecurityPolicy(formTargets: string[] = [], imageSources: string[] = []): string {
  const targets = ["'self'", ...formTargets].join(' ');
  const images = [...imageSources, 'data:'].join(' ');
  return `default-src 'none'; style-src ${STYLE_HASH}; img-src ${images}; form-action ${targets}; frame-ancestors 'none'; base-uri 'none'`;
}

/**
 * `wide` for tables, `full` for the dashboards pages' many-column lists; `reload` makes the page load
 * `url` again after `seconds` without script (a meta refresh, which the CSP does not govern).
 */
export function layout(input: { title: string; displayName: string; body: Html; wide?: boolean; full?: boolean; reload?: { seconds: number; url: string } }): string {
  return (
    '<!doctype html>\n' +
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><meta name="referrer" content="same-origin">${input.reload ? html`<meta http-equiv="refresh" content="${String(input.reload.seconds)};url=${input.reload.url}">` : null}<title>${input.title} · ${input.displayName}</title>
<style>${new Html(STYLE)}</style></head>
<body><main${new Html(input.full ? ' class="full"' : input.wide ? ' class="wide"' : '')}><div class="brand"><span class="mark"></span>${input.displayName}</div>
<div class="card">${input.body}</div></main></body></html>
`.value
  );
}
