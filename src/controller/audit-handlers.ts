/** The control operations of the audit trail: members report their events, administrators read them. */
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { isAuditEventKind, versionHint, type ControllerOperations, type OperationHandlers } from '../wire/protocol.ts';
import { auditExchangeVersion, eventKindsHint } from '../wire/protocol/audit.ts';
import type { ReportIntake } from './audit-intake.ts';
import { memberIdPattern } from './audit-reports.ts';
import type { AuditTrail } from './audit-trail.ts';
import { requireAdmin } from './projects.ts';

type AuditOperations = Pick<OperationHandlers<ControllerOperations>, 'audit-report' | 'audit'>;

/** `member()` is the member the connection's certificate proves (it throws for an anonymous one). */
export function auditHandlers(trail: AuditTrail, intake: ReportIntake, member: () => PeerIdentity): AuditOperations {
  return {
    'audit-report': ({ records }) => intake.report(member(), records),
    audit: (query) => {
      const admin = member();
      requireAdmin(admin);
      if (query.exchange !== auditExchangeVersion)
        throw new RuntimeFailure(
          'PROTOCOL_VERSION',
          `this controller answers audit listings of version ${auditExchangeVersion}, ` +
            `and this portal reads version ${query.exchange || 1}`,
          { hint: versionHint },
        );
      if (query.member !== undefined && !memberIdPattern.test(query.member))
        throw new InputError('BAD_FLAG', `--member ${query.member.slice(0, 80)} is not a member id`, {
          hint: 'give a member id such as n1a2b3c4d5e6f7a8b (portal project audit --json shows them)',
        });
      if (query.event !== undefined && !isAuditEventKind(query.event))
        throw new InputError('BAD_FLAG', `--event ${query.event.slice(0, 80)} is not an event kind`, {
          hint: eventKindsHint,
        });
      return trail.query(admin.projectId, query);
    },
  };
}
