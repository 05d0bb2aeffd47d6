/**
 * The overview's live portals, as nodes report them: each inlet with its pool of outlets and the path
 * to each, what it carries now and has carried, and each outlet with what it carries to its target.
 * The same fragment is the page's first state and what the live stream sends again when it changes.
 */
import { html } from 'hono/html';
import type { PortalReport } from '../../../wire/protocol.ts';
import type { NodePortalReport } from '../../portal-reports.ts';
import { timeOrDash, type Html } from './layout.ts';

type Placed = PortalReport & { readonly node: string };

/** The columns both tables end with: what a part carries, and since when. */
const figureHeads = html`<th scope="col">Open</th>
  <th scope="col">Carried</th>
  <th scope="col">To the service</th>
  <th scope="col">Back</th>
  <th scope="col">Since</th>`;

export function livePortals(reports: readonly NodePortalReport[]): Html {
  const placed = reports.flatMap(({ node, portals }) => portals.map((portal): Placed => ({ ...portal, node })));
  const inlets = placed.filter((portal) => portal.part === 'inlet');
  const outlets = placed.filter((portal) => portal.part === 'outlet');
  if (placed.length === 0)
    return html`<p>No node reports a portal now: nodes report theirs once they run and reach the controller.</p>`;
  return html`${inlets.length === 0 ? html`<p>No inlet reports a portal now.</p>` : inletsTable(inlets)}
  ${outlets.length === 0 ? html`<p>No outlet reports a portal now.</p>` : outletsTable(outlets)}`;
}

function inletsTable(inlets: readonly Placed[]): Html {
  return html`<div class="scroll" role="region" aria-label="Portals by inlet" tabindex="0">
    <table>
      <caption>
        By inlet: its outlets and the path to each
      </caption>
      <thead>
        <tr>
          <th scope="col">Portal</th>
          <th scope="col">Inlet</th>
          <th scope="col">Outlets (path, clients)</th>
          ${figureHeads}
        </tr>
      </thead>
      <tbody>
        ${inlets.map(
          (inlet) =>
            html`<tr data-portal="${inlet.node} ${inlet.name}">
              <td>
                ${inlet.name} <span class="quiet">(relay name <code>${inlet.relay}</code>)</span>
              </td>
              <td><code>${inlet.node}</code> <span class="quiet">${inlet.status}</span></td>
              <td>
                ${
                  inlet.peers.length === 0
                    ? html`<span class="problem">none yet</span>`
                    : html`<ul class="plain">
                        ${inlet.peers.map(
                          (peer) =>
                            html`<li>
                              <code>${peer.node}</code>: ${peer.path === '' ? 'no session' : peer.path}, ${peer.open}
                            </li>`,
                        )}
                      </ul>`
                }
              </td>
              <td data-open>${inlet.open}</td>
              <td>${inlet.total}</td>
              <td data-bytes-up>${bytes(inlet.up)}</td>
              <td data-bytes-down>${bytes(inlet.down)}</td>
              <td>${since(inlet.since)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function outletsTable(outlets: readonly Placed[]): Html {
  return html`<div class="scroll" role="region" aria-label="Outlets" tabindex="0">
    <table>
      <caption>
        Outlets, by relay name (several under one name are a pool)
      </caption>
      <thead>
        <tr>
          <th scope="col">Relay name</th>
          <th scope="col">Outlet</th>
          <th scope="col">State</th>
          ${figureHeads}
        </tr>
      </thead>
      <tbody>
        ${[...outlets]
          .sort((a, b) => a.relay.localeCompare(b.relay))
          .map(
            (outlet) =>
              html`<tr>
                <td><code>${outlet.relay}</code></td>
                <td><code>${outlet.node}</code> <span class="quiet">(${outlet.name})</span></td>
                <td class="${outlet.status === 'up' ? '' : 'problem'}">${outlet.status}</td>
                <td>${outlet.open}</td>
                <td>${outlet.total}</td>
                <td>${bytes(outlet.up)}</td>
                <td>${bytes(outlet.down)}</td>
                <td>${since(outlet.since)}</td>
              </tr>`,
          )}
      </tbody>
    </table>
  </div>`;
}

/** A byte count as people read it: 1,234 B, 5.6 KiB, 7.8 MiB, 9.1 GiB. */
export function bytes(count: number): string {
  if (count < 1024) return `${count.toLocaleString('en')} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = count / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function since(at: number): Html | string {
  const date = new Date(at);
  return timeOrDash(at > 0 && Number.isFinite(date.getTime()) ? date.toISOString() : null);
}
