// The one stylesheet and the one script of the audit pages, inline because the
// tool works offline and serves no static files. The script only adds
// niceties (auto-submit, expand all, clickable rows); every page works without
// it. Its hash goes into the Content-Security-Policy, so no other script can
// run even if some text ever escaped escaping.

import { createHash } from 'node:crypto';

export const STYLESHEET = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1d2026;--muted:#5f6773;--line:#dfe3e8;--soft:#f5f7f9;--accent:#2458d3;
--mark:#ffdf80;--add:#e3f6e8;--remove:#fde6e6;--ok:#1d7a3d;--error:#b42323;--aborted:#9a6200;
--seg-context:#4a7cf7;--seg-conversation:#17a383;--seg-reserve:#a56cf0}
@media (prefers-color-scheme:dark){:root{--bg:#14161a;--fg:#e3e6ea;--muted:#9aa2ad;--line:#2d3239;--soft:#1c2026;
--accent:#7ea4ff;--mark:#6e5400;--add:#123a22;--remove:#4a1b1e;--ok:#5fd08a;--error:#ff8c8c;--aborted:#f0b45a}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
.top{display:flex;gap:1rem;align-items:baseline;padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--soft)}
.top .brand{font-weight:700;color:var(--fg)}.top nav{display:flex;gap:1rem;flex:1}.top form{margin:0}
main{max-width:1180px;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.2rem 0 .8rem}h2{font-size:1.1rem;margin:1.6rem 0 .6rem}h3{font-size:1rem;margin:1rem 0 .4rem}
.muted{color:var(--muted)}.small{font-size:.85rem}.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.45rem .55rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.nowrap{white-space:nowrap}
tr[data-href]{cursor:pointer}tr[data-href]:hover td{background:var(--soft)}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;font-size:.8rem;border:1px solid currentColor;white-space:nowrap}
.badge.ok{color:var(--ok)}.badge.error{color:var(--error)}.badge.aborted{color:var(--aborted)}.badge.interrupted{color:var(--error)}.badge.in_flight{color:var(--aborted)}
.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end;margin:0 0 1rem;padding:.75rem;border:1px solid var(--line);border-radius:8px;background:var(--soft)}
.filters label{display:flex;flex-direction:column;font-size:.78rem;color:var(--muted);gap:.15rem}
.filters .grow{flex:1 1 14rem}.filters>a{align-self:center}
.toggles{display:flex;gap:.5rem;margin:.3rem 0}
input,select,button{font:inherit;font-size:.95rem;height:2.1rem;padding:.25rem .5rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
button,.button{cursor:pointer;background:var(--accent);color:#fff;border:1px solid var(--accent);border-radius:6px;padding:.3rem .8rem}
button.plain{background:transparent;color:var(--accent)}
.pager{display:flex;gap:1rem;justify-content:space-between;margin:1rem 0}
.notice{border:1px solid var(--aborted);border-radius:8px;padding:.5rem .75rem;margin:.5rem 0}
.notice.error{border-color:var(--error)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);padding:.55rem .75rem;border-radius:6px;margin:.35rem 0;
font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
mark.redacted{background:var(--mark);color:inherit;border-radius:3px;padding:0 .15rem;font-weight:600}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.2rem;margin:0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
.msg{border:1px solid var(--line);border-radius:8px;margin:.8rem 0;overflow:hidden}
.msg>.head{display:flex;justify-content:space-between;gap:1rem;padding:.35rem .75rem;background:var(--soft);border-bottom:1px solid var(--line)}
.msg>.head .role{font-weight:700}.msg>.body{padding:.4rem .75rem}
details.ctx{border:1px solid var(--line);border-left:4px solid var(--seg-context);border-radius:6px;margin:.45rem 0}
details.ctx>summary{cursor:pointer;padding:.35rem .6rem;font-size:.9rem}details.ctx>pre{margin:0 .5rem .5rem}
.bar{display:flex;height:1.5rem;border-radius:6px;overflow:hidden;border:1px solid var(--line);background:var(--soft)}
.bar>span{display:block;height:100%;min-width:2px}
.seg-context{background:var(--seg-context)}.seg-conversation{background:var(--seg-conversation)}.seg-reserve{background:var(--seg-reserve)}
.legend{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:.4rem 0;font-size:.88rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.35rem;vertical-align:-.1rem}
.diff{margin:.3rem 0;border:1px solid var(--line);border-radius:6px;overflow:hidden;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.diff div{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 .6rem}
.diff .add{background:var(--add)}.diff .remove{background:var(--remove)}.diff .skip{color:var(--muted);font-style:italic;background:var(--soft)}
.steps{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap;margin:.5rem 0 1rem}
.steps a,.steps span.current{padding:.15rem .55rem;border:1px solid var(--line);border-radius:6px}
.steps span.current{background:var(--accent);color:#fff;border-color:var(--accent)}
.login{max-width:22rem;margin:3rem auto;display:flex;flex-direction:column;gap:.6rem}
.scroll{overflow-x:auto}
.refusal{color:var(--error)}tr.group th{text-align:left;background:var(--soft);font-weight:600}.filters label.check{flex-direction:row;align-items:center;gap:.3rem}
table.why td.why-text{max-width:32rem}table.why tr.left-out{background:var(--soft)}.why-line{font-weight:400}
@media (max-width:640px){
main{padding:.6rem}.top{flex-wrap:wrap}
table.list thead{display:none}table.list,table.list tbody{display:block}
table.list tr{display:block;border:1px solid var(--line);border-radius:8px;margin:.55rem 0;padding:.35rem .6rem}
table.list td{display:flex;justify-content:space-between;gap:1rem;border:none;padding:.12rem 0;text-align:right}
table.list td::before{content:attr(data-label);color:var(--muted);font-size:.8rem;text-align:left;white-space:nowrap}
table.list td.question{display:block;text-align:left;padding-top:.3rem}table.list td.question::before{display:none}
.facts{grid-template-columns:1fr}.facts dd{margin-bottom:.3rem}
.filters label{flex:1 1 40%}.filters .grow{flex:1 1 100%}
table.sources td.source{display:block;text-align:left;font-weight:700}table.sources td.source::before{display:none}
table.why td.item{display:block;text-align:left;font-weight:600;overflow-wrap:anywhere}table.why td.item::before{display:none}table.why td.item .mono{font-weight:400}
}
`;

export const SCRIPT = `
for (const select of document.querySelectorAll('form[data-autosubmit] select')) {
  select.addEventListener('change', () => select.form.submit());
}
for (const button of document.querySelectorAll('[data-toggle-all]')) {
  button.hidden = false;
  button.addEventListener('click', () => {
    const open = button.dataset.toggleAll === 'open';
    for (const details of document.querySelectorAll('details.ctx')) details.open = open;
  });
}
for (const row of document.querySelectorAll('tr[data-href]')) {
  row.addEventListener('click', (event) => {
    if (event.target.closest('a, button, input, select')) return;
    window.location.href = row.dataset.href;
  });
}
`;

const scriptHash = createHash('sha256').update(SCRIPT).digest('base64');

/**
 * Only our own inline script and inline styles; no network, no frames, forms post to us.
 * In hono's secure-headers form (src/http/responseHead.ts sends it with every answer).
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'none'"],
  scriptSrc: [`'sha256-${scriptHash}'`],
  styleSrc: ["'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};
