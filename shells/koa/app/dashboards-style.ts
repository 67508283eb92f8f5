/**
 * Rules the dashboards pages add to the app's one stylesheet (html.ts hashes the whole sheet for its
 * CSP, so no page needs an inline style attribute). Colours come from the base sheet's variables, so
 * both schemes keep AA contrast.
 */
export const DASHBOARDS_PAGES_STYLE = `
main.full{max-width:72rem;margin-top:4vh}
a:focus-visible,select:focus-visible,summary:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
input[type=search]{width:100%;font:inherit;padding:.55rem .7rem;border:1px solid var(--line);border-radius:8px;background:var(--soft);color:var(--fg)}
nav.top{display:flex;gap:1.1rem;flex-wrap:wrap;margin:-.5rem 0 1.2rem;font-size:.9rem}
nav.top a[aria-current]{color:var(--fg);font-weight:650;text-decoration:none}
ul.owners{display:flex;gap:.4rem;flex-wrap:wrap;margin:.8rem 0 1.2rem;padding:0;list-style:none}
ul.owners a{display:inline-block;padding:.25rem .8rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;font-size:.9rem}
ul.owners a[aria-current]{background:var(--accent);border-color:var(--accent);color:var(--accent-fg);font-weight:600}
form.filters{display:grid;grid-template-columns:minmax(10rem,2fr) repeat(3,minmax(7rem,1fr)) auto;gap:.7rem;align-items:end;margin-bottom:1rem}
form.filters label,.stack label{display:block;font-weight:600;font-size:.85rem;margin:0 0 .25rem}
.scroll{overflow-x:auto}
table.list td{white-space:nowrap}
table.list td.name{white-space:normal;min-width:10rem;max-width:18rem}
table.list td.tags{white-space:normal;max-width:14rem}
table.list td.run .note{display:block;margin:0}
.clip{display:inline-block;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.badge.tag.clip{max-width:min(12rem,100%)}
table.list td.name .clip{max-width:min(16rem,100%)}
main.full h1,main.full p,main.full dd,a.back{overflow-wrap:anywhere}
.badge.bad{color:var(--bad);border-color:var(--bad)}
.badge.tag{color:var(--fg)}
.pager{display:flex;justify-content:space-between;gap:1rem;margin-top:1rem;font-size:.9rem}
.notice{border:1px solid var(--ok);color:var(--ok);border-radius:8px;padding:.6rem .8rem;margin:1rem 0}
.field-error{color:var(--bad);font-size:.85rem;margin:.3rem 0 0}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--bad)}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:0 1.5rem}
.stack{margin:.8rem 0}
.row-form{display:flex;gap:.5rem;align-items:flex-end;flex-wrap:wrap}
.row-form .stack{flex:1 1 12rem;margin:0}
picture.thumb img{display:block;width:9rem;height:4.75rem;object-fit:cover;object-position:top;margin-bottom:.35rem;border:1px solid var(--line);border-radius:6px;background:var(--soft)}
picture.image img{display:block;width:100%;max-width:36rem;height:auto;margin:0 0 1rem;border:1px solid var(--line);border-radius:10px;background:var(--soft)}
iframe.preview{display:block;width:100%;height:26rem;border:1px solid var(--line);border-radius:10px;background:#fff}
figure.chart{margin:.5rem 0 0;max-width:40rem}
figure.chart svg{display:block;width:100%;height:auto}
figure.chart rect.bar{fill:var(--accent)}
figure.chart line{stroke:var(--line)}
figure.chart .axis{display:flex;justify-content:space-between;font-size:.8rem;color:var(--muted);margin:.2rem 0 .4rem}
figcaption{font-size:.85rem;color:var(--muted)}
button.danger{background:var(--bad);border-color:var(--bad);color:var(--card)}
a.back{display:inline-block;margin-bottom:.6rem;font-size:.9rem}
input[type=date]{width:100%;font:inherit;padding:.5rem .7rem;border:1px solid var(--line);border-radius:8px;background:var(--soft);color:var(--fg)}
.created{border:1px solid var(--ok);border-radius:8px;padding:.6rem .8rem;margin:1rem 0}
.created label.field{margin-top:.5rem}
td.share-actions{white-space:nowrap}
td.share-actions button{padding:.3rem .7rem;font-size:.85rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:720px){form.filters{grid-template-columns:1fr 1fr}form.filters .wide-field{grid-column:1 / -1}.grid2{grid-template-columns:1fr}
.card{padding:1.1rem}main.full{margin-top:1rem}picture.thumb img{display:block;width:9rem;height:4.75rem;object-fit:cover;object-position:top;margin-bottom:.35rem;border:1px solid var(--line);border-radius:6px;background:var(--soft)}
picture.image img{display:block;width:100%;max-width:36rem;height:auto;margin:0 0 1rem;border:1px solid var(--line);border-radius:10px;background:var(--soft)}
iframe.preview{height:20rem}
table.list thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.list,table.list tbody,table.list tr,table.list td{display:block}
table.list tr{border-top:1px solid var(--line);padding:.6rem 0}
table.list td{border:0;padding:.1rem 0;white-space:normal}
table.list td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-size:.8rem}}
`;
