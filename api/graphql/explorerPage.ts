import { createHash } from 'node:crypto';

/**
 * The page a browser gets for `GET /graphql`: a query box, a variables box and a Run button that
 * POSTs to this same URL with the browser's cookies. Self-contained (the network may be closed, so
 * no CDN), with its one script and one style allowed by hash in a strict CSP.
 */
const STYLE = `body{font:14px system-ui,sans-serif;margin:0;display:grid;grid-template-rows:auto 1fr;height:100vh}
header{padding:8px 12px;background:#1f2937;color:#fff;display:flex;gap:12px;align-items:center}
main{display:grid;grid-template-columns:1fr 1fr;gap:8px;padding:8px;min-height:0}
section{display:grid;grid-template-rows:3fr 1fr;gap:8px;min-height:0}
textarea,pre{font:13px ui-monospace,monospace;border:1px solid #ccc;border-radius:4px;padding:8px;margin:0;overflow:auto;resize:none}
button{font:inherit;padding:4px 14px}`;

const SCRIPT = `const q=document.getElementById('q'),v=document.getElementById('v'),out=document.getElementById('out');
q.value=localStorage.getItem('loupe.graphql.query')||'query {\\n  viewer { username role }\\n  projects(first: 10) { edges { node { id name } } }\\n}';
v.value=localStorage.getItem('loupe.graphql.variables')||'{}';
async function run(){localStorage.setItem('loupe.graphql.query',q.value);localStorage.setItem('loupe.graphql.variables',v.value);
let variables;try{variables=JSON.parse(v.value||'{}')}catch(e){out.textContent='Variables are not JSON: '+e.message;return}
out.textContent='…';try{const r=await fetch(location.pathname,{method:'POST',credentials:'same-origin',headers:{'content-type':'application/json',accept:'application/json'},body:JSON.stringify({query:q.value,variables})});
out.textContent=r.status+'\\n'+JSON.stringify(await r.json(),null,2)}catch(e){out.textContent=String(e)}}
document.getElementById('run').addEventListener('click',run);
q.addEventListener('keydown',(e)=>{if((e.ctrlKey||e.metaKey)&&e.key==='Enter')run()});`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export const EXPLORER_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Loupe GraphQL</title><style>${STYLE}</style></head>
<body><header><strong>Loupe GraphQL</strong><button id="run" type="button">Run (Ctrl+Enter)</button><span>Schema: api/graphql/schema.graphql</span></header>
<main><section><textarea id="q" spellcheck="false" aria-label="Query"></textarea><textarea id="v" spellcheck="false" aria-label="Variables (JSON)"></textarea></section>
<pre id="out" aria-live="polite"></pre></main><script>${SCRIPT}</script></body></html>`;

export const EXPLORER_CSP = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  `style-src ${hash(STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
