import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The console's script as scripts/build.mjs made it (dist/console/console.js), found from this
 * module's place in the bundle or the source tree; undefined where it was never built: the pages work
 * without it.
 */
export function consoleScript(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [join(dir, 'console', 'console.js'), join(dir, 'dist', 'console', 'console.js')])
      if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The console's style sheet, served from the controller (no third-party request): readable at a
 * phone's width, with contrast of at least 4.5:1 for text (WCAG 2.1 AA).
 */
export const consoleCss = `
:root {
  color-scheme: light;
  --ink: #1b1f24;
  --muted: #4a5360;
  --line: #c9d1d9;
  --accent: #0b5cad;
  --paper: #ffffff;
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: var(--paper); }
header {
  display: flex;
  flex-wrap: wrap;
  gap: 0.5rem 1.5rem;
  align-items: center;
  padding: 0.75rem 1rem;
  border-bottom: 1px solid var(--line);
}
.brand { font-weight: 700; color: var(--ink); text-decoration: none; }
nav ul { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0; padding: 0; list-style: none; }
nav a { color: var(--accent); }
nav a[aria-current="page"] { color: var(--ink); font-weight: 700; text-decoration: none; }
.sign-out { margin-left: auto; display: flex; gap: 0.5rem; align-items: center; color: var(--muted); }
main { padding: 1rem; max-width: 72rem; }
main p { overflow-wrap: anywhere; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible {
  outline: 3px solid var(--accent);
  outline-offset: 2px;
}
button {
  font: inherit;
  padding: 0.35rem 0.9rem;
  border: 1px solid var(--accent);
  border-radius: 4px;
  background: var(--accent);
  color: #ffffff;
  cursor: pointer;
}
table { border-collapse: collapse; width: 100%; }
.scroll { overflow-x: auto; position: relative; }
.scroll + .scroll, .scroll + p { margin-top: 1.5rem; }
caption { text-align: left; color: var(--muted); padding-bottom: 0.5rem; }
th, td {
  text-align: left;
  padding: 0.4rem 0.75rem 0.4rem 0;
  border-bottom: 1px solid var(--line);
  vertical-align: top;
}
code { font: 0.9em ui-monospace, monospace; overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; }
time { white-space: nowrap; }
pre { font: 0.85em/1.4 ui-monospace, monospace; margin: 0; }
pre.numbered span { display: block; white-space: pre; }
pre .at-fault { background: #fde2e1; }
.artifacts { list-style: none; padding: 0; }
.artifacts li { border-bottom: 1px solid var(--line); padding: 0.4rem 0; }
details pre { padding: 0.5rem 0; }
.visually-hidden {
  position: absolute;
  width: 1px;
  height: 1px;
  overflow: hidden;
  clip-path: inset(50%);
  white-space: nowrap;
}
button.danger { background: #a4161a; border-color: #a4161a; }
.problem { color: #a4161a; font-weight: 600; }
input[type="text"], textarea { font: inherit; padding: 0.3rem; max-width: 100%; }
fieldset { border: 1px solid var(--line); margin: 0 0 1rem; }
.filters { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: flex-end; }
select { font: inherit; padding: 0.3rem; }
fieldset label { display: block; }
textarea[readonly] { font-family: ui-monospace, monospace; }
.quiet { color: var(--muted); }
ul.plain { list-style: none; padding: 0; margin: 0; }
`;

/** The console's icon, so that a browser's request for one is answered. */
export const consoleIcon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">
<circle cx="8" cy="8" r="6" fill="none" stroke="#0b5cad" stroke-width="3"/></svg>
`;
