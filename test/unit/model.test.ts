// The description (provider/model.ts) is the one place an input or output is described: the class's
// and its arguments' JSDoc, the plugin's schema and outputs are held to it here, and the class and the
// plugin derive the same values from the same state, secret alike.
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";
import { inputs, isSecret, outputNames, outputs } from "../../provider/model";
import { toEngine } from "../../provider/plugin/server";
import { schema, typeToken } from "../../provider/plugin/schema";
import { storageUserMocks } from "../../provider/testing";
import { repoRoot, packageVersion } from "../../scripts/toolchain";

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** The JSDoc text (tags left out) of each member of the named class, interface or object literal in a source file. */
function jsDocOf(file: string, container: string): Map<string, string> {
  const text = fs.readFileSync(path.join(repoRoot, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const docs = new Map<string, string>();
  const visit = (node: ts.Node) => {
    const named = (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name?.text === container;
    const literal =
      ts.isVariableDeclaration(node) &&
      node.name.getText() === container &&
      node.initializer &&
      ts.isObjectLiteralExpression(node.initializer);
    const members = named ? node.members : literal ? node.initializer.properties : [];
    for (const member of members) {
      const [doc] = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
      if (doc && member.name && ts.isIdentifier(member.name))
        docs.set(member.name.text, squash(ts.getTextOfJSDocComment(doc.comment) ?? ""));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return docs;
}

test("the class's outputs, its arguments and their JSDoc are the description's", () => {
  const table = jsDocOf("provider/model.ts", "outputs");
  for (const name of outputNames) expect(table.get(name), name).toBe(squash(outputs[name].description));
  const members = jsDocOf("provider/storage-user.ts", "StorageUser");
  const args = jsDocOf("provider/storage-user.ts", "StorageUserArgs");
  expect([...args.keys()].sort()).toEqual(Object.keys(inputs).sort());
  for (const [name, input] of Object.entries(inputs)) {
    expect(args.get(name), name).toBe(squash(input.description));
    expect(members.get(name), name).toBe(squash(input.output));
  }
});

describe("the plugin's schema", () => {
  const resource = schema.resources[typeToken];
  test("has the description's inputs and outputs, nothing else; all but two are set after every create", () => {
    expect(Object.keys(resource.inputProperties).sort()).toEqual(Object.keys(inputs).sort());
    expect(Object.keys(resource.properties).sort()).toEqual([...Object.keys(inputs), ...outputNames].sort());
    expect(Object.keys(resource.properties).filter((k) => !resource.required.includes(k))).toEqual([
      "connection",
      "creationTaskId",
    ]);
    expect(schema.version).toBe(packageVersion);
  });
  test("marks secret exactly the outputs made from the credentials", () => {
    const props = resource.properties as Record<string, { secret?: boolean }>;
    const made = ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"];
    expect(Object.keys(props).filter((k) => props[k].secret)).toEqual(made);
    expect(outputNames.filter(isSecret)).toEqual(made);
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
    // The built class: its plugin entry (./runtime) is resolved as the package ships it.
    const { StorageUser } = await import("../../dist/provider/storage-user");
    const user = new StorageUser("app", { userName: "app-prod" }) as unknown as Record<string, pulumi.Output<unknown>>;
    for (const name of outputNames) {
      const value = await new Promise((resolve) => user[name].apply(resolve));
      fromClass[name] = { value, secret: await pulumi.isSecret(user[name]) };
    }
  });
  test.each(outputNames)("%s", (name) => {
    const wrapped = toEngine(state, id)[name] as Record<string, unknown>;
    const secret = typeof wrapped === "object" && wrapped !== null && "4dabf18193072939515e22adb298388d" in wrapped;
    expect(fromClass[name].value).toBeDefined();
    expect(secret ? wrapped.value : wrapped).toEqual(fromClass[name].value);
    expect([fromClass[name].secret, secret]).toEqual([isSecret(name), isSecret(name)]);
  });
});
