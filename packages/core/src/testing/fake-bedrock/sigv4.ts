// Checks a request's AWS Signature Version 4 as Bedrock Runtime would: the credential scope,
// the access key, the payload hash and the signature, recomputed with the server's secret by
// the AWS SDK's own signer (@smithy/signature-v4) over the headers the request says it signed.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/** The credentials a fake AWS service accepts. */
export interface FakeAWSCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** A received request, as much of it as a signature covers. */
export interface SignedRequest {
  method: string;
  /** The path exactly as sent (still percent-encoded). */
  path: string;
  /** Header names in lower case; HTTP/2 pseudo-headers (`:authority`) included. */
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
}

/** Why AWS refuses a request before it looks at it: its error type and message. */
export interface SignatureFailure {
  type: 'MissingAuthenticationTokenException' | 'UnrecognizedClientException' | 'InvalidSignatureException';
  message: string;
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

/** Node's SHA-256 (an HMAC when given a secret), in the shape the signer takes. */
class Sha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/**
 * Undefined when `request` is signed right for `service` in `region` with `credentials`;
 * otherwise what AWS answers (403 with that `x-amzn-errortype`).
 */
export async function checkSignature(
  request: SignedRequest,
  expected: { credentials: FakeAWSCredentials; region: string; service: string },
): Promise<SignatureFailure | undefined> {
  const authorization = request.headers.authorization;
  const date = request.headers['x-amz-date'];
  if (authorization === undefined || date === undefined) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parsed = AUTHORIZATION.exec(authorization);
  const invalid = (why: string): SignatureFailure => ({
    type: 'InvalidSignatureException',
    message: `The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. (${why})`,
  });
  if (!parsed) return invalid('the Authorization header is not AWS4-HMAC-SHA256');
  const [, accessKeyId, day, region, service, signedHeaders, signature] = parsed as unknown as [string, string, string, string, string, string, string];
  if (accessKeyId !== expected.credentials.accessKeyId) {
    return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (region !== expected.region) return invalid(`the credential scope names region ${region}, not ${expected.region}`);
  if (service !== expected.service) return invalid(`the credential scope names service ${service}, not ${expected.service}`);
  if (!/^\d{8}T\d{6}Z$/.test(date) || date.slice(0, 8) !== day) return invalid('X-Amz-Date does not match the credential scope');
  const payloadHash = createHash('sha256').update(request.body).digest('hex');
  const claimed = request.headers['x-amz-content-sha256'];
  if (claimed !== undefined && claimed !== payloadHash) return invalid('X-Amz-Content-Sha256 is not the hash of the body');
  const names = signedHeaders.split(';');
  if (!names.includes('host') && !names.includes(':authority')) return invalid('the host is not signed');
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    if (value === undefined) return invalid(`the signed header ${name} is missing`);
    headers[name] = value;
  }
  const [pathname = '/', search = ''] = request.path.split('?', 2);
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(search)) query[key] = value;
  const signer = new SignatureV4({ credentials: expected.credentials, region, service, sha256: Sha256, uriEscapePath: true, applyChecksum: true });
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const signed = await signer.sign(
    { method: request.method, protocol: 'http:', hostname: 'fake', path: pathname, query, headers, body: request.body },
    { signingDate, signableHeaders: new Set(names) },
  );
  const recomputed = /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization ?? '')?.[1];
  return recomputed === signature ? undefined : invalid('the signature differs');
}
