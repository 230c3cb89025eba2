/**
 * AWS Signature V4 for the few admin calls the local API makes to versitygw (`PATCH
 * /create-user`). Small enough to own rather than pull in a signer package: versitygw checks
 * every signature, so a mistake here fails the first create loudly.
 */
import { createHash, createHmac } from "node:crypto";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
const encode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SigningKey {
  accessKey: string;
  secretKey: string;
  region?: string;
}

/** The headers to send with `method url body`: host, x-amz-date, x-amz-content-sha256, authorization. */
export function signV4(
  method: string,
  url: URL,
  body: Buffer,
  key: SigningKey,
  now = new Date(),
): Record<string, string> {
  const region = key.region ?? "us-east-1";
  const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, "");
  const scope = `${amzDate.slice(0, 8)}/${region}/s3/aws4_request`;
  const payloadHash = sha256(body);
  const headers: Record<string, string> = {
    host: url.host,
    "x-amz-content-sha256": payloadHash,
    "x-amz-date": amzDate,
  };
  const names = Object.keys(headers).sort();
  const query = [...url.searchParams]
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join("&");
  const canonical = [
    method,
    url.pathname,
    query,
    ...names.map((n) => `${n}:${headers[n]}`),
    "",
    names.join(";"),
    payloadHash,
  ].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  let signingKey = hmac(`AWS4${key.secretKey}`, amzDate.slice(0, 8));
  for (const part of [region, "s3", "aws4_request"]) signingKey = hmac(signingKey, part);
  const signature = createHmac("sha256", signingKey).update(toSign).digest("hex");
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${key.accessKey}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`,
  };
}
