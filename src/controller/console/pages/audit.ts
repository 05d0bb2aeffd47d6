/** The audit trail: filters, the matching records, the chain's verification, the export. */
import { html } from 'hono/html';
import { auditEventKinds, type AuditRecordWire } from '../../../wire/protocol/audit.ts';
import { timeOrDash, type Html } from './layout.ts';

/** The filters as typed, shown again with the records they chose. */
export interface AuditFilters {
  readonly since: string;
  readonly member: string;
  readonly event: string;
}

export function auditPage(
  filters: AuditFilters,
  shown: readonly AuditRecordWire[],
  matched: number,
  problem?: string,
  live?: string,
): Html {
  const query = new URLSearchParams({ ...filters }).toString();
  return html`<form method="get" action="/audit" class="filters">
      <p>
        <label for="since">Since (such as 1h or 7d; empty for all)</label><br />
        <input id="since" name="since" type="text" size="8" value="${filters.since}" />
      </p>
      <p>
        <label for="member">Member (an id)</label><br />
        <input id="member" name="member" type="text" size="20" value="${filters.member}" />
      </p>
      <p>
        <label for="event">Kind</label><br />
        <select id="event" name="event">
          <option value="">every kind</option>
          ${auditEventKinds.map(
            (kind) => html`<option value="${kind}" ${filters.event === kind ? 'selected' : ''}>${kind}</option>`,
          )}
        </select>
      </p>
      <p><button type="submit">Show</button></p>
    </form>
    ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
    <p>
      <a href="/audit/verify">Verify the whole chain</a> ·
      <a href="/audit.jsonl?${query}" download="audit.jsonl">Export these records as JSON lines</a>
    </p>
    <p role="status">
      ${matched === shown.length ? `${matched} records.` : `The last ${shown.length} of ${matched} records.`}
    </p>
    ${live ? html`<p>Records written from now on appear at the end as they come.</p>` : ''}
    ${shown.length === 0 && !live ? '' : recordsTable(shown, live)}`;
}

/** `live`: where the records written after these are streamed from. */
function recordsTable(records: readonly AuditRecordWire[], live: string | undefined): Html {
  return html`<div class="scroll" role="region" aria-label="Audit records" tabindex="0">
    <table>
      <thead>
        <tr>
          <th scope="col">Seq</th>
          <th scope="col">Time</th>
          <th scope="col">Kind</th>
          <th scope="col">Seen by</th>
          <th scope="col">Members</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody ${live ? html`data-live="${live}" data-live-event="records" data-live-mode="append"` : ''}>
        ${recordRows(records)}
      </tbody>
    </table>
  </div>`;
}

/** The rows of `records`: the table's, and what the live tail appends to it. */
export function recordRows(records: readonly AuditRecordWire[]): Html {
  return html`${records.map((record) => {
    const time = new Date(record.time).toISOString();
    return html`<tr>
      <td>${record.seq}</td>
      <td>${timeOrDash(time)}</td>
      <td>${record.event}</td>
      <td><code>${record.seenBy}</code></td>
      <td><code>${(JSON.parse(record.members) as string[]).join(', ')}</code></td>
      <td><code>${record.details}</code></td>
    </tr>`;
  })}`;
}

/** The verification's verdict: whole (with its head and notes), or the first break. */
export function verification(whole: boolean, line: string): Html {
  return html`<p role="status" class="${whole ? '' : 'problem'}">${line}</p>
    <p><a href="/audit">Back to the audit trail</a></p>`;
}
