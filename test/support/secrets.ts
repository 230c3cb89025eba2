// What the secret searches look for and where: every secret the local API issued to a user
// (with the encodings a leak might take), and every file under a directory.
import * as fs from "node:fs";
import * as path from "node:path";
import type { StoredUser } from "../../server/api-server";

/** The secrets of a user as issued, each under a label. */
export function secretsOf(u: StoredUser): Array<[string, string]> {
  const ftpUrl = `ftp://${encodeURIComponent(u.FtpConnection.Login)}:${encodeURIComponent(u.FtpConnection.Password)}@${u.FtpConnection.HostName}/`;
  return [
    [`user ${u.Id} Password`, u.Password],
    [`user ${u.Id} Swift TenantId`, u.SwiftApiConnection.TenantId],
    [`user ${u.Id} Swift AccessKey`, u.SwiftApiConnection.AccessKey],
    [`user ${u.Id} Swift Password`, u.SwiftApiConnection.Password],
    [`user ${u.Id} S3 AccessKey`, u.S3Connection.AccessKey],
    [`user ${u.Id} S3 SecretKey`, u.S3Connection.SecretKey],
    [`user ${u.Id} FTP Login`, u.FtpConnection.Login],
    [`user ${u.Id} FTP Password`, u.FtpConnection.Password],
    [`user ${u.Id} ftp URL`, ftpUrl],
    [`user ${u.Id} ftp userinfo`, `${u.FtpConnection.Login}:${u.FtpConnection.Password}`],
  ];
}

/** Each labelled value, and its base64 form. */
export const withEncodings = (plain: Array<[string, string]>): Array<[string, string]> =>
  plain.flatMap(([label, value]) => [
    [label, value],
    [`${label} (base64)`, Buffer.from(value).toString("base64")],
  ]);

/** Every (needle, place) pair found: must be empty. */
export function hits(places: Array<[string, string]>, needles: Array<[string, string]>): string[] {
  const found: string[] = [];
  for (const [where, text] of places)
    for (const [what, value] of needles) if (text.includes(value)) found.push(`${what} in ${where}`);
  return found;
}

/** Every file under `dir` (as latin1 text), by path. */
export function filesUnder(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.statSync(p).size < 50 * 1024 * 1024)
        out.push([p, fs.readFileSync(p).toString("latin1")]);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}
