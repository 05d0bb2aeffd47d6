/**
 * The overview: problems, the portals live, the project, its members in numbers, and the controllers
 * and relays serving it now.
 */
import { html } from 'hono/html';
import type { MemberInfo, ProjectInfo, RelayEntry } from '../../../wire/protocol.ts';
import type { NodePortalReport } from '../../portal-reports.ts';
import type { ChainState } from '../chain-watch.ts';
import type { ConsoleProblem } from '../problems.ts';
import { timeOrDash, type Html } from './layout.ts';
import { livePortals } from './portals.ts';

export interface OverviewData {
  readonly project: ProjectInfo;
  readonly members: readonly MemberInfo[];
  readonly relays: readonly RelayEntry[];
  readonly controllers: readonly string[];
  readonly portals: readonly NodePortalReport[];
  readonly problems: readonly ConsoleProblem[];
  readonly chain: ChainState;
}

export function overview(data: OverviewData): Html {
  const { project, members, relays, controllers, portals, problems, chain } = data;
  const current = members.filter((member) => member.revoked === null);
  const count = (kind: MemberInfo['kind']) => current.filter((member) => member.kind === kind).length;
  return html`<section aria-labelledby="problems">
      <h2 id="problems">Problems</h2>
      ${
        problems.length === 0
          ? html`<p>None: every node and relay of the project is connected, and a relay serves it.</p>`
          : html`<ul>
              ${problems.map(
                (problem) => html`<li><span class="problem">${problem.what}</span> To do: ${problem.fix}.</li>`,
              )}
            </ul>`
      }
    </section>
    <section aria-labelledby="portals">
      <h2 id="portals">Portals</h2>
      <div data-live="/live/portals" data-live-event="portals" aria-live="off">${livePortals(portals)}</div>
    </section>
    <section aria-labelledby="project">
      <h2 id="project">Project</h2>
      <dl>
        <dt>Name</dt>
        <dd>${project.name}</dd>
        <dt>Id</dt>
        <dd><code>${project.id}</code></dd>
        <dt>Controller</dt>
        <dd><code>${project.controller}</code></dd>
        <dt>Created</dt>
        <dd>${timeOrDash(project.created_at)}</dd>
        <dt>Audit trail</dt>
        <dd>${chainLine(chain)} <a href="/audit/verify">Verify the whole chain</a></dd>
      </dl>
    </section>
    <section aria-labelledby="members-count">
      <h2 id="members-count">Members</h2>
      <p>
        ${counted(count('node'), 'node')}, ${counted(count('relay'), 'relay node')} and
        ${counted(count('administrator'), 'administrator')}; ${current.filter((member) => member.connected).length}
        connected now, ${members.length - current.length} revoked. <a href="/members">See every member</a>.
      </p>
    </section>
    <section aria-labelledby="controllers">
      <h2 id="controllers">Controllers</h2>
      <ul>
        ${controllers.map((address) => html`<li><code>${address}</code></li>`)}
      </ul>
    </section>
    <section aria-labelledby="relays">
      <h2 id="relays">Relays</h2>
      ${
        relays.length === 0
          ? html`<p>No relay serves the project now: portals that cannot connect directly wait for one.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Relay</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                ${relays.map(
                  (relay) =>
                    html`<tr>
                      <td><code>${relay.id}</code></td>
                      <td><code>${relay.address}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>`;
}

/** The background check's word on the chain (chain-watch.ts). */
function chainLine(chain: ChainState): Html | string {
  switch (chain.kind) {
    case 'checking':
      return `being checked (through record ${chain.through} so far).`;
    case 'whole':
      return html`whole through record ${chain.through}, checked ${timeOrDash(new Date(chain.at).toISOString())}.`;
    case 'broken':
      return html`<span class="problem">broken: ${chain.what}.</span>`;
  }
}

const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
