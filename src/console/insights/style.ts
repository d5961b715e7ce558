/** The Insights page's style: the console's colours and bar, cards of figures, tables, charts; one column on phones. */
export const INSIGHTS_CSS = String.raw`:root { color-scheme: light dark; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  --bg: #f6f7f9; --fg: #1b1f24; --muted: #57606a; --card: #fff; --line: #d0d7de; --accent: #0b5cd5; --accent-fg: #fff; --err: #cf222e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --card: #161b22; --line: #30363d; --accent: #4493f8; --accent-fg: #0d1117; --err: #f85149; }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--fg); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.bar { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .6rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); }
.bar h1 { font-size: 1.15rem; margin: 0; }
.back { margin-left: auto; color: var(--accent); }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; display: grid; gap: 1rem; grid-template-columns: repeat(2, minmax(0, 1fr)); }
.controls, .figures { grid-column: 1 / -1; }
.controls { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; }
fieldset { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .75rem; margin: 0; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; background: var(--card); }
legend { color: var(--muted); font-size: .875rem; }
label { display: inline-flex; gap: .35rem; align-items: center; }
input, select, button { font: inherit; min-height: 44px; padding: .35rem .6rem; border-radius: .5rem; border: 1px solid var(--line); background: var(--bg); color: var(--fg); }
button { border-color: var(--accent); background: var(--accent); color: var(--accent-fg); cursor: pointer; }
button.secondary { background: transparent; color: var(--fg); border-color: var(--line); }
.quick { display: inline-flex; flex-wrap: wrap; gap: .35rem; }
.status { margin: 0; color: var(--muted); flex-basis: 100%; }
.status.error { color: var(--err); }
.figures { display: grid; gap: .75rem; grid-template-columns: repeat(auto-fit, minmax(10.5rem, 1fr)); }
.figure { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: .6rem .8rem; }
.figure .name { color: var(--muted); font-size: .875rem; margin: 0; }
.figure .value { font-size: 1.6rem; font-weight: 600; margin: .1rem 0; }
.figure .of { color: var(--muted); font-size: .875rem; margin: 0; }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: .6rem .8rem; min-width: 0; }
.panel h2 { font-size: 1rem; margin: 0 0 .5rem; }
.chart { min-height: 1rem; overflow: hidden; }
.shares { width: 100%; border-collapse: collapse; font-size: .9rem; }
.shares th { text-align: left; font-weight: 400; padding: .25rem .4rem .25rem 0; }
.shares td { text-align: right; padding: .25rem 0; font-variant-numeric: tabular-nums; white-space: nowrap; }
.shares tr + tr { border-top: 1px solid var(--line); }
.note { color: var(--muted); font-size: .8rem; margin: .4rem 0 0; }
.u-legend { font-size: .8rem; }
@media (max-width: 700px) {
  main { grid-template-columns: minmax(0, 1fr); padding: .6rem; }
  .controls { flex-direction: column; align-items: stretch; }
  fieldset { width: 100%; }
  .figures { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
`;
