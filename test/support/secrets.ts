// What the secret searches look for and where: every secret the local API issued to a user (with
// the encodings a leak might take), and every file under a directory.
import * as fs from "node:fs";
import * as path from "node:path";
import type { StoredUser } from "../../server/api-server";

/** The secrets of a user as issued, each under a label. */
export function secretsOf(u: StoredUser): Array<[string, string]> {
  const { Login, Password, HostName } = u.FtpConnection;
  const ftpUrl = `ftp://${encodeURIComponent(Login)}:${encodeURIComponent(Password)}@${HostName}/`;
  const swift = u.SwiftApiConnection;
  const values = [
    u.Password,
    swift.TenantId,
    swift.AccessKey,
    swift.Password,
    u.S3Connection.AccessKey,
    u.S3Connection.SecretKey,
  ];
  const labels = ["Password", "Swift TenantId", "Swift AccessKey", "Swift Password", "S3 AccessKey", "S3 SecretKey"];
  return [
    ...values.map((v, i): [string, string] => [`user ${u.Id} ${labels[i]}`, v]),
    ...[Login, Password, ftpUrl, `${Login}:${Password}`].map((v, i): [string, string] => [
      `user ${u.Id} FTP ${["Login", "Password", "URL", "userinfo"][i]}`,
      v,
    ]),
  ];
}

/** Each labelled value, and its base64 form. */
export const withEncodings = (plain: Array<[string, string]>): Array<[string, string]> =>
  plain.flatMap(([label, value]) => [
    [label, value],
    [`${label} (base64)`, Buffer.from(value).toString("base64")],
  ]);

/** Every (needle, place) pair found: must be empty. */
export const hits = (places: Array<[string, string]>, needles: Array<[string, string]>): string[] =>
  places.flatMap(([where, text]) => needles.filter(([, v]) => text.includes(v)).map(([what]) => `${what} in ${where}`));

/** Every file under `dir` (as latin1 text), by path. */
export function filesUnder(dir: string): Array<[string, string]> {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && fs.statSync(path.join(e.parentPath, e.name)).size < 50 << 20)
    .map((e) => [path.join(e.parentPath, e.name), fs.readFileSync(path.join(e.parentPath, e.name)).toString("latin1")]);
}
