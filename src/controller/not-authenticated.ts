import { PortalError } from '../shared/errors.ts';

/** A request that needs a member, on a connection whose certificate proves none (or a revoked one). */
export class NotAuthenticated extends PortalError {
  readonly exitCode = 1 as const;
  constructor() {
    super(
      'NOT_AUTHENTICATED',
      "the controller did not accept this node's certificate: it expired, it is from another project, " +
        'or the member was revoked',
      {
        hint:
          'check that PORTAL_HOME holds an enrolled identity for this controller; portal project members ' +
          '(as an administrator) says whether it was revoked, and a revoked node needs a new ticket',
      },
    );
  }
}
