/** Small helpers the controller's recorders share. */
import { X509Certificate } from 'node:crypto';

/** When a certificate (PEM) expires, ISO 8601; null when it cannot be read. */
export function certificateExpiry(certificate: string): string | null {
  try {
    return new Date(new X509Certificate(certificate).validTo).toISOString();
  } catch {
    return null;
  }
}
