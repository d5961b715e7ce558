/** The console's stylesheet: system fonts, light and dark, 44 px touch targets, one column on phones. */
export const APP_CSS = String.raw`:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --fg: #1b1f24; --muted: #57606a; --card: #fff; --line: #d0d7de;
  --accent: #0b5cd5; --accent-fg: #fff; --ok: #1a7f37; --no: #8a5a00; --err: #cf222e;
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --card: #161b22; --line: #30363d;
    --accent: #4493f8; --accent-fg: #0d1117; --ok: #3fb950; --no: #d29922; --err: #f85149; }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--fg); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
h2:focus { outline: none; }

.bar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .6rem 1rem;
  background: var(--card); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 1; }
.bar h1 { font-size: 1.15rem; margin: 0; }
.conn { margin: 0; font-size: .875rem; color: var(--muted); }
.conn::before { content: ""; display: inline-block; width: .6rem; height: .6rem; border-radius: 50%;
  margin-right: .4rem; background: var(--muted); }
.conn.live::before { background: var(--ok); }
.conn.offline::before { background: var(--err); }
.who { margin-left: auto; display: flex; gap: .5rem; align-items: center; font-size: .875rem; }
.who input { width: 9rem; }
.lang { margin-left: auto; display: flex; gap: .4rem; align-items: center; font-size: .875rem; color: var(--muted); }
.lang + .who { margin-left: 0; }

main { max-width: 46rem; margin: 0 auto; padding: .5rem 1rem 3rem; }
h2 { font-size: 1.1rem; margin: 1.25rem 0 .75rem; }
.count { color: var(--muted); font-weight: 400; }
.empty { color: var(--muted); }

button { font: inherit; min-height: 2.75rem; padding: .45rem 1rem; border-radius: .5rem; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); }
button.secondary { background: transparent; color: var(--fg); border-color: var(--line); }
button:hover { filter: brightness(1.08); }
input[type=text], input[type=password], .typed input, textarea { font: inherit; min-height: 2.75rem; min-width: 0; padding: .45rem .7rem;
  border: 1px solid var(--line); border-radius: .5rem; background: var(--bg); color: var(--fg); }
.login { display: grid; gap: .5rem; max-width: 24rem; }

.run { margin-bottom: 1rem; }
.run h3 { font: 600 .875rem/1.3 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--muted);
  margin: 0 0 .35rem; overflow-wrap: anywhere; }
.ask { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; padding: 1rem; }
.ask[aria-busy=true] { opacity: .6; }
.meta { margin: 0 0 .75rem; font-size: .875rem; color: var(--muted); }
ul.policy { list-style: none; padding: 0; margin: -.5rem 0 .75rem; font-size: .875rem; color: var(--muted); }
ul.policy li { overflow-wrap: anywhere; }
ul.policy .tally { color: var(--fg); font-weight: 600; }
.failed { color: var(--err); }
ul.responses { list-style: none; padding: 0; margin: 0; }
.question, legend { font-weight: 600; margin: 0 0 .6rem; padding: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.chip { display: inline-block; font-size: .75rem; font-weight: 700; letter-spacing: .03em; padding: .05rem .5rem;
  margin-right: .5rem; border: 1px solid var(--line); border-radius: 1rem; background: var(--bg); white-space: nowrap; }
.label { font-weight: 600; overflow-wrap: anywhere; }
.desc { display: block; font-size: .875rem; color: var(--muted); white-space: pre-wrap; overflow-wrap: anywhere; }

.choices { display: grid; gap: .5rem; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); margin-bottom: .9rem; }
button.choice { text-align: left; background: var(--bg); color: var(--fg); border-color: var(--line); }
button.choice:hover { border-color: var(--accent); filter: none; }
.own > label { display: block; font-size: .875rem; margin-bottom: .3rem; }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.row input[type=text] { flex: 1 1 12rem; }

fieldset.step { border: 0; padding: 0; margin: 0; min-width: 0; }
.hint, .progress { margin: 0 0 .4rem; font-size: .875rem; color: var(--muted); }
.opt { display: flex; gap: .65rem; align-items: flex-start; padding: .55rem .2rem; border-top: 1px solid var(--line); }
.opt > label { flex: 1; cursor: pointer; }
.opt input[type=radio], .opt input[type=checkbox] { width: 1.3rem; height: 1.3rem; margin: .1rem 0 0; flex: none;
  accent-color: var(--accent); }
.opt.other { align-items: center; flex-wrap: wrap; }
.opt.other > label { flex: none; }
.opt.other input[type=text] { flex: 1 1 10rem; }
.field { margin-bottom: .4rem; }
.field input, .field textarea { flex: 1 1 12rem; max-width: 100%; }
.field input[type=number], .field input[type=date], .field input[type=time] { flex: 0 1 12rem; }
.unit { color: var(--muted); }
[aria-invalid=true] { border-color: var(--err) !important; }
.actions { margin-top: .75rem; }
.actions .skip, .own .skip { margin-left: auto; }
.error { color: var(--err); margin: .5rem 0 0; }
.error:empty { display: none; }

.approval .action { margin: 0 0 .6rem; overflow-wrap: anywhere; }
.hash { color: var(--muted); }
pre.args, pre.preview { font: .875rem/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; margin: 0 0 .6rem;
  padding: .6rem .75rem; background: var(--bg); border: 1px solid var(--line); border-radius: .5rem; overflow: auto; }
dl.args { margin: 0 0 .6rem; }
dl.args dd { white-space: pre-wrap; }
.decisions { margin: .75rem 0 .5rem; }
form.decide > label { display: block; font-size: .875rem; margin-bottom: .3rem; }
form.decide textarea { width: 100%; }
textarea.json { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .875rem; }

details.events { margin-top: .75rem; font-size: .875rem; }
details.events > summary { cursor: pointer; color: var(--muted); min-height: 1.75rem; }
ol.events { list-style: none; padding: 0; margin: .4rem 0 0; }
ol.events li { padding: .1rem 0; overflow-wrap: anywhere; }
ol.events time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: .5rem; }

.history { list-style: none; padding: 0; margin: 0; }
.past { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; margin-bottom: .5rem; }
.past > details > summary { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: baseline;
  padding: .6rem .75rem; min-height: 2.75rem; cursor: pointer; list-style: none; }
.past > details > summary::-webkit-details-marker { display: none; }
.past > details > summary::before { content: "▸"; color: var(--muted); }
.past > details[open] > summary::before { content: "▾"; }
.badge { font-size: .75rem; font-weight: 700; padding: .05rem .5rem; border-radius: 1rem; border: 1px solid currentColor; }
.badge.ok { color: var(--ok); }
.badge.no { color: var(--no); }
.past .run-id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .875rem; overflow-wrap: anywhere; }
.past .line { flex: 1 1 12rem; overflow-wrap: anywhere; }
.past summary time { color: var(--muted); font-size: .875rem; }
.past-body { padding: 0 .75rem .75rem; }
.outcome { white-space: pre-wrap; font-weight: 600; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; font-size: .875rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ol.questions { padding-left: 1.25rem; }
ol.questions ul { padding-left: 1rem; font-size: .875rem; }

.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 32rem) {
  main { padding: .25rem .6rem 2rem; }
  .bar { position: static; }
  .who { margin-left: 0; width: 100%; }
  .who input { flex: 1; }
  .ask { padding: .8rem; }
}
`;
