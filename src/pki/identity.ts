/**
 * What a Portal certificate says about its holder, carried as SAN URIs so that any X.509 tool can read
 * it: portal://<project>/node/<id>, …/attr/<attribute>, …/relay/<name>, …/role/admin,
 * …/role/tls, …/role/relay-node. An attribute KEY=VALUE is written as it is (…/attr/team=ops): the
 * characters attributes may hold (src/shared/policy/attributes.ts) need no escaping in a URI path.
 */
import { X509Certificate } from 'node:crypto';

export interface PeerIdentity {
  readonly projectId: string;
  readonly nodeId: string;
  readonly attributes: readonly string[];
  /** Relay names this identity may register. */
  readonly relays: readonly string[];
  readonly admin: boolean;
  /** The inlet may obtain a TLS server certificate. */
  readonly tls: boolean;
  /** A relay node: it may announce itself as a relay of the project. */
  readonly relayNode: boolean;
}

export function identityUris(identity: PeerIdentity): string[] {
  const base = `portal://${identity.projectId}`;
  return [
    `${base}/node/${identity.nodeId}`,
    ...identity.attributes.map((attribute) => `${base}/attr/${attribute}`),
    ...identity.relays.map((relay) => `${base}/relay/${relay}`),
    ...(identity.admin ? [`${base}/role/admin`] : []),
    ...(identity.tls ? [`${base}/role/tls`] : []),
    ...(identity.relayNode ? [`${base}/role/relay-node`] : []),
  ];
}

/** The identity in a certificate, or undefined when it carries no Portal node URI. */
export function identityOf(certificate: X509Certificate | string): PeerIdentity | undefined {
  const cert = typeof certificate === 'string' ? new X509Certificate(certificate) : certificate;
  const uris = (cert.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('URI:portal://'))
    .map((entry) => new URL(entry.slice(4)));
  const node = uris.find((uri) => uri.pathname.startsWith('/node/'));
  if (!node) return undefined;
  const projectId = node.host;
  const values = (kind: string) =>
    uris
      .filter((uri) => uri.host === projectId && uri.pathname.startsWith(`/${kind}/`))
      .map((uri) => decodeURIComponent(uri.pathname.slice(kind.length + 2)));
  return {
    projectId,
    nodeId: node.pathname.slice('/node/'.length),
    attributes: values('attr'),
    relays: values('relay'),
    admin: values('role').includes('admin'),
    tls: values('role').includes('tls'),
    relayNode: values('role').includes('relay-node'),
  };
}
