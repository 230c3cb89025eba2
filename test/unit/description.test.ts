// The description of StorageUser (provider/description.ts) is the one place an input or output is
// described: the TypeScript class's declarations and JSDoc, the plugin's schema and outputs, and
// the table of docs/outputs.md are held to it here, and the class and the plugin derive the same
// values from the same state, secret alike.
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";
import { inputs, isSecretOutput, outputNames, outputs } from "../../provider/description";
import { outputsOf, secretKeys, toEngine } from "../../provider/yaml/outputs";
import { schema, typeToken } from "../../provider/yaml/schema";
import { storageUserMocks } from "../../provider/testing";

const root = path.join(__dirname, "../..");
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** The JSDoc text (tags left out) of each member of a class or interface in a source file. */
function jsDocOf(file: string, container: string): Map<string, string> {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(root, file), "utf8"),
    ts.ScriptTarget.ES2022,
    true,
  );
  const docs = new Map<string, string>();
  const visit = (node: ts.Node) => {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name?.text === container) {
      for (const member of node.members) {
        if (!member.name || !ts.isIdentifier(member.name)) continue;
        const [doc] = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
        if (doc && (ts.isPropertyDeclaration(member) || ts.isPropertySignature(member)))
          docs.set(member.name.text, squash(ts.getTextOfJSDocComment(doc.comment) ?? ""));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return docs;
}

describe("the TypeScript resource", () => {
  const members = jsDocOf("provider/program/storage-user.ts", "StorageUser");
  const args = jsDocOf("provider/program/storage-user.ts", "StorageUserArgs");

  test("declares every input and output of the description, and nothing else public", () => {
    const declared = [...members.keys()].filter((k) => k !== "account" && k !== "secrets").sort();
    expect(declared).toEqual([...Object.keys(inputs), ...outputNames].sort());
    expect([...args.keys()].sort()).toEqual(Object.keys(inputs).sort());
  });

  test("documents each with the description's text", () => {
    for (const name of outputNames) expect(members.get(name), name).toBe(squash(outputs[name].description));
    for (const [name, input] of Object.entries(inputs)) {
      expect(args.get(name), name).toBe(squash(input.description));
      expect(members.get(name), name).toBe(squash(input.output));
    }
  });
});

describe("the plugin's schema", () => {
  const resource = schema.resources[typeToken] as {
    inputProperties: Record<string, { secret?: boolean }>;
    properties: Record<string, { secret?: boolean }>;
  };

  test("has the description's inputs, outputs and the recorded state, nothing else", () => {
    expect(Object.keys(resource.inputProperties).sort()).toEqual(Object.keys(inputs).sort());
    expect(Object.keys(resource.properties).sort()).toEqual(
      [...Object.keys(inputs), ...outputNames, "account", "secrets"].sort(),
    );
  });

  test("marks secret exactly the outputs made from the credentials, and the recorded secrets", () => {
    const secret = Object.entries(resource.properties)
      .filter(([, p]) => p.secret)
      .map(([k]) => k);
    expect(secret.sort()).toEqual(["secrets", ...outputNames.filter(isSecretOutput)].sort());
    expect([...secretKeys].sort()).toEqual(secret.sort());
    expect(outputNames.filter(isSecretOutput)).toEqual([
      "credentials",
      "name",
      "password",
      "swift",
      "s3",
      "ftp",
      "env",
      "ftpUrl",
    ]);
  });
});

describe("docs/outputs.md", () => {
  // Rows start with the output's name(s) in backticks; the third cell says whether it is secret.
  const rows = fs
    .readFileSync(path.join(root, "docs/outputs.md"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .flatMap((l) => {
      const [names, , secret] = l
        .split("|")
        .slice(1)
        .map((c) => c.trim());
      return [...names.replace(/\(.*\)/, "").matchAll(/`(\w+)`/g)].map((m) => [m[1], secret] as const);
    });

  test("has one row per input and output, and says which are secret", () => {
    const documented = new Map(rows);
    expect([...documented.keys()].filter((k) => k !== "id").sort()).toEqual(
      [...Object.keys(inputs), ...outputNames].sort(),
    );
    for (const name of outputNames) expect(documented.get(name), name).toBe(isSecretOutput(name) ? "**yes**" : "no");
    for (const name of Object.keys(inputs)) expect(documented.get(name), name).toBe("no");
  });
});

describe("the class and the plugin derive the same outputs from the same state", () => {
  let state: Record<string, unknown>;
  let id: string;
  const fromClass: Record<string, { value: unknown; secret: boolean }> = {};

  beforeAll(async () => {
    const mocks = storageUserMocks();
    await pulumi.runtime.setMocks(
      {
        newResource(a) {
          const r = mocks.newResource(a) as { id: string; state: Record<string, unknown> };
          [id, state] = [r.id, r.state];
          return r;
        },
        call: (a) => mocks.call(a),
      },
      "project",
      "stack",
      false,
    );
    // The built class: its plugin entry (../runtime) is resolved as the package ships it.
    const { StorageUser } = await import("../../dist/provider/program/storage-user");
    const user = new StorageUser("app", { userName: "app-prod" }) as unknown as Record<string, pulumi.Output<unknown>>;
    for (const name of outputNames) {
      const value = await new Promise((resolve) => user[name].apply(resolve));
      fromClass[name] = { value, secret: await pulumi.isSecret(user[name]) };
    }
  });

  test.each(outputNames)("%s", (name) => {
    const plugin = outputsOf(state, id);
    expect(fromClass[name].value).toBeDefined();
    expect(plugin[name]).toEqual(fromClass[name].value);
    expect(fromClass[name].secret).toBe(isSecretOutput(name));
    const wrapped = toEngine(plugin)[name] as Record<string, unknown>;
    expect(typeof wrapped === "object" && wrapped !== null && "4dabf18193072939515e22adb298388d" in wrapped).toBe(
      isSecretOutput(name),
    );
  });
});
