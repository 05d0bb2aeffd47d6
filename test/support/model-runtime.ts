/**
 * The foundation-model runtime and its client for the TLS use case: a stand-in for the hosted runtime
 * that speaks its protocol over HTTPS, and a real bedrock-runtime client that reaches it through an
 * inlet by the name the README gives.
 */
import {
  BedrockRuntimeClient,
  InvokeModelCommand,
  type InvokeModelCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Agent, createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { createServerCertificate } from '../../src/pki/authority.ts';
import { joinedRegExp } from './joined-regexp.ts';

export interface InvokeBody {
  inputText: string;
  textGenerationConfig: { maxTokenCount: number; temperature: number; topP: number };
}

/**
 * The foundation-model runtime, standing in for the hosted one: HTTPS with a certificate of its own,
 * `POST /model/{modelId}/invoke` with the spec's request and response bodies, and a refusal of any
 * request that does not carry a SigV4 Authorization header.
 */
export async function startRuntime(): Promise<{
  server: Server;
  port: number;
  certificate: string;
  seen: { authorization: string; host: string; modelId: string }[];
}> {
  const identity = createServerCertificate('localhost');
  const seen: { authorization: string; host: string; modelId: string }[] = [];
  const server = createHttpsServer({ key: identity.privateKey, cert: identity.certificate }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const route = /^\/model\/([^/]+)\/invoke$/.exec(req.url ?? '');
      const authorization = String(req.headers.authorization ?? '');
      if (req.method !== 'POST' || !route) {
        res.writeHead(404).end();
        return;
      }
      if (
        !joinedRegExp(
          /^AWS4-HMAC-SHA256 Credential=AKIDPORTALTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request, /,
          /SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
        ).test(authorization)
      ) {
        res
          .writeHead(403, { 'content-type': 'application/json' })
          .end('{"message":"missing or malformed SigV4 Authorization"}');
        return;
      }
      seen.push({ authorization, host: String(req.headers.host), modelId: decodeURIComponent(route[1] as string) });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as InvokeBody;
      const answer = {
        inputTextTokenCount: body.inputText.split(/\s+/).length,
        results: [
          {
            tokenCount: body.textGenerationConfig.maxTokenCount,
            outputText: body.inputText,
            completionReason: 'FINISH',
          },
        ],
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, certificate: identity.certificate, seen };
}

export interface InvokeOptions {
  /** The inlet's address is where the name resolves, as a hosts entry would make it. */
  readonly inletPort: number;
  /** The name the client signs and verifies, such as bedrock.<project_id>.<network_domain>. */
  readonly name: string;
  /** The project CA the client trusts; none means the system's roots only. */
  readonly ca?: string;
}

/**
 * InvokeModel as the README shows it (titan text, 256 tokens, temperature 0.5, topP 0.9), through a
 * real bedrock-runtime client at https://<name>:<inletPort>.
 */
export function invokeModel(inputText: string, options: InvokeOptions): Promise<InvokeModelCommandOutput> {
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all)
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: '127.0.0.1', family: 4 },
      ]);
    else callback(null, '127.0.0.1', 4);
  };
  const httpsAgent = new Agent({ lookup, ...(options.ca ? { ca: options.ca } : {}) });
  const client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `https://${options.name}:${options.inletPort}`,
    credentials: { accessKeyId: 'AKIDPORTALTEST', secretAccessKey: 'portal-test-secret' },
    // The inlet speaks HTTP/1.1 (ALPN http/1.1); this client would otherwise choose HTTP/2.
    requestHandler: new NodeHttpHandler({ httpsAgent }),
    maxAttempts: 1,
  });
  return client.send(
    new InvokeModelCommand({
      modelId: 'amazon.titan-text-express-v1',
      contentType: 'application/json',
      accept: 'application/json',
      body: JSON.stringify({ inputText, textGenerationConfig: { maxTokenCount: 256, temperature: 0.5, topP: 0.9 } }),
    }),
  );
}
