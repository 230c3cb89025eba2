/** App-ready values derived in the program from a user's `credentials` output. */
import type { Credentials, FtpConnection } from "../wire";

/** ftp://login:password@host/ with both parts percent-encoded. */
export function ftpUrlOf(ftp: FtpConnection): string {
  return `ftp://${encodeURIComponent(ftp.login)}:${encodeURIComponent(ftp.password)}@${ftp.hostName}/`;
}

/**
 * Conventional variable names per protocol (documented in examples/README.md). Derived in the
 * program rather than stored: state would otherwise hold every credential twice, and each
 * secret in state is re-encrypted on every checkpoint of every `up`.
 */
export function envOf({ swift, s3, ftp }: Credentials): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: s3.accessKey,
    AWS_SECRET_ACCESS_KEY: s3.secretKey,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    OS_AUTH_URL: swift.endpoint,
    OS_TENANT_ID: swift.tenantId,
    OS_PROJECT_ID: swift.tenantId,
    OS_USERNAME: swift.accessKey,
    OS_PASSWORD: swift.password,
    FTP_HOST: ftp.hostName,
    FTP_USER: ftp.login,
    FTP_PASSWORD: ftp.password,
    FTP_URL: ftpUrlOf(ftp),
  };
}
