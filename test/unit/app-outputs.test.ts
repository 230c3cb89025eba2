// App-ready outputs (env, ftpUrl) straight from the functions that derive them, with
// credentials chosen to break naive URL building, and the .env/JSON/Secret renderers of
// examples/app-config fed with the same values.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import { dotenv, k8sSecret, render } from "../../examples/app-config/render";
import { Credentials, envOf, ftpUrlOf } from "../../provider/model";

function user(login: string, password: string): Credentials {
  return {
    name: "app",
    password: "pw",
    swift: { endpoint: "https://swift.example.test/v1", tenantId: "t-1", accessKey: "SWIFTKEY", password: "swift-pw" },
    s3: { endpoint: "https://s3.example.test", accessKey: "S3KEY", secretKey: "s3/secret+key=" },
    ftp: { hostName: "ftp.example.test", login, password },
  };
}
const derive = (c: Credentials) => ({ ftpUrl: ftpUrlOf(c.ftp), env: envOf(c) });

const hostile = [
  ["plain", "ftp_abc", "secret"],
  ["at, colon, slash, percent", "a@b:c/d%e", "p@ss:w/o%rd"],
  ["already percent-encoded text", "user%40host", "%2F%3A"],
  ["query, fragment, space, unicode", "u?x#y z", "pä ss#?&="],
] as const;

describe("ftpUrl", () => {
  test.each(hostile)("round-trips %s through a URL parser", (_label, login, password) => {
    const { ftpUrl, env } = derive(user(login, password));
    const url = new URL(ftpUrl);
    const parts = [url.protocol, url.hostname, url.pathname, url.search + url.hash];
    const userinfo = [url.username, url.password].map(decodeURIComponent);
    expect([...parts, ...userinfo]).toStrictEqual(["ftp:", "ftp.example.test", "/", "", login, password]);
    // Only the userinfo separators stay literal: one ':' after the scheme ("ftp://") and one '@'.
    expect([ftpUrl.split("@").length, ftpUrl.slice(6).split(":").length, env.FTP_URL]).toStrictEqual([2, 2, ftpUrl]);
  });

  test("the reserved characters are percent-encoded, as RFC 3986 userinfo requires", () => {
    const { ftpUrl } = derive(user("a@b:c/d%e", "p@ss:w/o%rd"));
    expect(ftpUrl).toBe("ftp://a%40b%3Ac%2Fd%25e:p%40ss%3Aw%2Fo%25rd@ftp.example.test/");
  });
});

describe("env", () => {
  test("names and values map one to one onto the S3, Swift and FTP connections", () => {
    const out = derive(user("ftp_abc", "ftp-pw"));
    expect(out.env).toEqual({
      AWS_ACCESS_KEY_ID: "S3KEY",
      AWS_SECRET_ACCESS_KEY: "s3/secret+key=",
      AWS_ENDPOINT_URL_S3: "https://s3.example.test",
      OS_AUTH_URL: "https://swift.example.test/v1",
      OS_TENANT_ID: "t-1",
      OS_PROJECT_ID: "t-1",
      OS_USERNAME: "SWIFTKEY",
      OS_PASSWORD: "swift-pw",
      FTP_HOST: "ftp.example.test",
      FTP_USER: "ftp_abc",
      FTP_PASSWORD: "ftp-pw",
      FTP_URL: "ftp://ftp_abc:ftp-pw@ftp.example.test/",
    });
  });

  test("a Keystone v3 endpoint adds the version and the user's domain, which v3 clients need", () => {
    const c = user("ftp_abc", "ftp-pw");
    const v3 = envOf({ ...c, swift: { ...c.swift, endpoint: "http://127.0.0.1:5000/v3" } });
    expect(v3).toEqual({
      ...derive(c).env,
      OS_AUTH_URL: "http://127.0.0.1:5000/v3",
      OS_IDENTITY_API_VERSION: "3",
      OS_USER_DOMAIN_NAME: "Default",
    });
    expect(
      envOf({ ...c, swift: { ...c.swift, endpoint: "https://keystone.example.test/v3/" } }).OS_IDENTITY_API_VERSION,
    ).toBe("3");
    // The documentation table lists exactly the names a v3 user gets (a superset of the others).
    const doc = fs.readFileSync(path.join(__dirname, "../..", "examples", "README.md"), "utf8");
    const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(v3).sort());
  });
});

describe("app-config renderers", () => {
  const env = derive(user("a@b:c/d%e", "p ss#x")).env;

  test(".env: bare where every reader agrees, single-quoted otherwise", () => {
    const lines = dotenv(env).trimEnd().split("\n");
    expect(lines).toHaveLength(12);
    expect(lines).toContain("AWS_SECRET_ACCESS_KEY=s3/secret+key=");
    expect(lines).toContain("FTP_USER=a@b:c/d%e");
    expect(lines).toContain("FTP_PASSWORD='p ss#x'");
    expect(() => dotenv({ X: "it's" })).toThrow(/X holds a quote/);
    expect(() => dotenv({ X: "a\nb" })).toThrow(/X holds a quote or line break/);
  });

  test("json and Kubernetes Secret carry every value exactly", () => {
    expect(JSON.parse(render("json", env, "x"))).toEqual(env);
    const manifest = k8sSecret("app-storage", env);
    expect(manifest).toMatch(
      /^apiVersion: v1\nkind: Secret\nmetadata:\n {2}name: app-storage\ntype: Opaque\nstringData:\n/,
    );
    const data = Object.fromEntries(
      [...manifest.matchAll(/^ {2}([A-Z0-9_]+): (".*")$/gm)].map((m) => [m[1], JSON.parse(m[2])]),
    );
    expect(data).toEqual(env);
    expect(() => k8sSecret("App_Storage", env)).toThrow(/not a valid Kubernetes object name/);
  });
});
