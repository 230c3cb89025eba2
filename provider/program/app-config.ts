/** App-ready values derived in the program from a user's `credentials` output. */
import type { Credentials, FtpConnection } from "../wire";

/** ftp://login:password@host/ with both parts percent-encoded. */
export function ftpUrlOf(ftp: FtpConnection): string {
  return `ftp://${encodeURIComponent(ftp.login)}:${encodeURIComponent(ftp.password)}@${ftp.hostName}/`;
}

/**
 * Keystone v3 needs to be told it is v3, and in which domain the user name is, or clients fall
 * back to v1/v2 auth or refuse the name (python-swiftclient 4.1, rclone 1.60: examples/README.md).
 * The spec names no domain; OpenStack's default one is the only choice that needs none.
 */
function identityV3(endpoint: string): Record<string, string> {
  return /\/v3\/?$/.test(endpoint) ? { OS_IDENTITY_API_VERSION: "3", OS_USER_DOMAIN_NAME: "Default" } : {};
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
    ...identityV3(swift.endpoint),
    FTP_HOST: ftp.hostName,
    FTP_USER: ftp.login,
    FTP_PASSWORD: ftp.password,
    FTP_URL: ftpUrlOf(ftp),
  };
}
