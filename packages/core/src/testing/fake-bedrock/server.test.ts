import { connect } from 'node:http2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeBedrockServer } from './server.js';

/** One raw HTTP/2 request, outside the SDK: what the server answers to a request the SDK would never send. */
function send(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; errorType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const session = connect(url);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/model/amazon.nova-pro-v1%3A0/converse-stream',
      'content-type': 'application/json',
      ...headers,
    });
    let status = 0;
    let errorType = '';
    let text = '';
    stream.on('response', (response) => {
      status = Number(response[':status']);
      errorType = String(response['x-amzn-errortype'] ?? '');
    });
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    stream.on('end', () => {
      session.close();
      resolve({ status, errorType, body: text });
    });
    stream.end(body);
  });
}

describe('FakeBedrockServer', () => {
  let server: FakeBedrockServer;
  beforeEach(async () => {
    server = await FakeBedrockServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('refuses an unsigned request with 403 MissingAuthenticationTokenException, as Bedrock Runtime does', async () => {
    server.enqueue({ text: 'never' });
    const answer = await send(server.url, {}, '{"messages":[]}');
    expect(answer).toMatchObject({ status: 403, errorType: expect.stringMatching(/^MissingAuthenticationTokenException:/) as unknown });
    expect(JSON.parse(answer.body)).toEqual({ message: 'Missing Authentication Token' });
    expect(server.requests[0]?.refused).toBe('MissingAuthenticationTokenException');
    expect(server.queued).toBe(1);
  });

  it('refuses a request whose body is not the one that was signed', async () => {
    const date = '20261202T120000Z';
    const authorization = `AWS4-HMAC-SHA256 Credential=${server.credentials.accessKeyId}/20261202/us-east-1/bedrock/aws4_request, SignedHeaders=:authority;content-type;x-amz-content-sha256;x-amz-date, Signature=${'0'.repeat(64)}`;
    const signedFor = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'; // the hash of an empty body
    const answer = await send(server.url, { authorization, 'x-amz-date': date, 'x-amz-content-sha256': signedFor }, '{"messages":[]}');
    expect(answer).toMatchObject({ status: 403, errorType: expect.stringMatching(/^InvalidSignatureException:/) as unknown });
    expect(answer.body).toContain('X-Amz-Content-Sha256 is not the hash of the body');
  });

  it('refuses an access key it does not know with UnrecognizedClientException', async () => {
    const authorization = `AWS4-HMAC-SHA256 Credential=AKIAUNKNOWN/20261202/us-east-1/bedrock/aws4_request, SignedHeaders=:authority;x-amz-date, Signature=${'0'.repeat(64)}`;
    const answer = await send(server.url, { authorization, 'x-amz-date': '20261202T120000Z' }, '');
    expect(answer).toMatchObject({ status: 403, errorType: expect.stringMatching(/^UnrecognizedClientException:/) as unknown });
  });
});
