/**
 * What the inlet stack's status loop checks beyond `portal node show`: each portal whose verification
 * it can run on the inlet machine itself with the tools every machine has (bash, curl), through the
 * inlet on loopback. A node whose portal does not answer then writes no "node is UP" line, so the
 * node-down alarm turns red when the service behind the portal is gone, not only the node. TLS inlets
 * and the kinds that need a client program or change data (command, psql, webhook, invoke-model) are
 * left to the guide's verification.
 */
import type { UseCase } from '../model.ts';
import { printfOctal, subLiteral } from '../quote.ts';

export type StatusCheck =
  | {
      readonly kind: 'http';
      readonly name: string;
      readonly port: number;
      readonly method: string;
      readonly path: string;
      readonly status: number;
    }
  | {
      readonly kind: 'tcp';
      readonly name: string;
      readonly port: number;
      /** The bytes to send as a printf format of octal escapes ('' for none). */
      readonly send: string;
      readonly expect: string;
      readonly expectBytes: number;
    };

export function statusChecks(useCase: UseCase): StatusCheck[] {
  return useCase.portals.flatMap((portal): StatusCheck[] => {
    const { verification } = portal;
    if (portal.inlet.tls) return [];
    const base = { name: portal.name, port: portal.inlet.port };
    if (verification.kind === 'http') {
      return [
        {
          kind: 'http',
          ...base,
          method: verification.method ?? 'GET',
          // The boot script is a Fn::Sub template: what the manifest wrote must come out literally.
          path: subLiteral(verification.path ?? '/'),
          status: verification.status ?? 200,
        },
      ];
    }
    if (verification.kind === 'tcp' && verification.expect !== undefined) {
      return [
        {
          kind: 'tcp',
          ...base,
          send: verification.send === undefined ? '' : printfOctal(verification.send),
          expect: subLiteral(verification.expect),
          expectBytes: Buffer.byteLength(verification.expect, 'utf8'),
        },
      ];
    }
    return [];
  });
}
