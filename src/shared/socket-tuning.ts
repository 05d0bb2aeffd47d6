/**
 * Stream buffer sizes on the data path. With the default 16 KiB, every 64 KiB read overflows the
 * writable side at once, so a pipe pauses and resumes for every chunk; 1 MiB lets whole reads through
 * while still bounding what one connection may buffer.
 */
export const dataPathHighWaterMark = 1024 * 1024;

/** TLS 1.3 suites for the end-to-end session, AES-128-GCM first: the fastest with AES-NI. */
export const dataPathCipherSuites = 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256';
