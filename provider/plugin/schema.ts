// The schema the plugin serves: what YAML programs are checked against and the Go and Python SDKs are generated from
// (tools/sdkgen), all of it from the description (model.ts) and the doc comments of what TypeScript programs use.
import * as fs from "node:fs";
import * as path from "node:path";
import { TYPES } from "../identity";
import { fields, inputs, isSecret, outputNames, outputs } from "../model";

const described = (description: string) => ({ type: "string", description });
/** The doc comments of a declaration's members, by name: read from the module's declaration file (its source in tests). */
function docs(module: string, declaration: string): Record<string, string> {
  const file = [".d.ts", ".ts"].map((ext) => path.join(__dirname, "..", module + ext)).find((f) => fs.existsSync(f));
  const text = file ? fs.readFileSync(file, "utf8") : "";
  const body = text.slice(text.indexOf(declaration)).split("\n}")[0];
  const prose = (doc: string) => (doc.replace(/@default[^]*|^\s*\* ?/gm, "").match(/\S+/g) ?? []).join(" ");
  const each = body.matchAll(/\/\*\*([^]*?)\*\/\s*(?:readonly |public )*(\w+)[?!]?:/g);
  return Object.fromEntries([...each].map(([, doc, name]) => [name, prose(doc)]));
}
const [argDocs, memberDocs, outputDocs] = [
  docs("storage-user", "interface StorageUserArgs"),
  docs("storage-user", "class StorageUser "),
  docs("model", "const outputs"),
];
const object = (properties: Record<string, object>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
});
const ref = (c: string) => `#/types/storage-user:index:${c[0].toUpperCase()}${c.slice(1)}Connection`;
const connections = [...new Set(fields.map((f) => f.conn).filter((c) => c !== undefined))];
/** The string fields of a connection (or, without one, the answer's secret top-level fields), described by their API path. */
const stringsOf = (conn?: string) =>
  Object.fromEntries(
    fields
      .filter((f) => f.conn === conn && (conn || !f.plain))
      .map((f) => [f.name, described(`\`${f.api.join(".")}\` of the API's answer.`)]),
  );
const settings = {
  baseUrl: described(
    "The storage API's root URL (https://…; http:// only to a loopback address). Fallback: STORAGE_API_URL in the environment of the pulumi command. Preview needs it; no request is sent.",
  ),
  accessToken: {
    ...described(
      "The API token, refused unless secret (`pulumi config set --secret storage-user:accessToken`, value entered at the prompt or piped in). Fallback: STORAGE_ACCESS_TOKEN. Preview needs none; create does.",
    ),
    secret: true,
  },
};
// Not set after every create: a default connection has none; an answer may list no creation task; rotateAfter is optional.
const optional = ["connection", "creationTaskId", "rotateAfter"];

export const typeToken = TYPES.pluginUser;
export const schema = {
  name: "storage-user",
  displayName: "StorageUser",
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json is outside rootDir for import; a dev build's +<sha> left out, as Pulumi's Python SDK asks for none (docs/decisions.md)
  version: (require("pulumi-storage-user/package.json") as { version: string }).version.replace(/\+.*/, ""),
  description:
    "StorageUser creates an object-storage user and hands its Swift, S3 and FTP credentials over as secret outputs.",
  license: "Apache-2.0",
  config: { variables: settings },
  provider: {
    description: "Settings of one storage service; one explicit provider per service when a program uses several.",
    inputProperties: settings,
  },
  types: {
    ...Object.fromEntries(connections.map((c) => [ref(c).slice(8), object(stringsOf(c))])),
    "storage-user:index:Credentials": object({
      ...stringsOf(),
      ...Object.fromEntries(connections.map((c) => [c, { $ref: ref(c), description: `The ${c} connection.` }])),
    }),
    "storage-user:index:Task": object({
      id: { type: "integer", description: "`Id`." },
      progressPercent: { type: "number", description: "`ProgressPercent` at creation." },
      type: described("`Type`, e.g. StorageUserCreate."),
      state: described("`State`, e.g. New."),
      startDate: described("`StartDate`, as the service wrote it."),
    }),
  },
  resources: {
    [typeToken]: {
      isComponent: true,
      description:
        "A user of the object-storage service. The API can only create: deleting or replacing it leaves the user on the service (warning USER_LEFT_STACK / REPLACE_LEAVES_USER).",
      inputProperties: Object.fromEntries(
        Object.entries(inputs).map(([k, i]) => [k, { ...i.schema, description: argDocs[k] }]),
      ),
      properties: {
        ...Object.fromEntries(
          Object.entries(inputs).map(([k, i]) => [k, { type: i.schema.type, description: memberDocs[k] }]),
        ),
        ...Object.fromEntries(
          outputNames.map((k) => [k, { ...outputs[k].schema, description: outputDocs[k], secret: isSecret(k) }]),
        ),
      },
      required: [...Object.keys(inputs), ...outputNames].filter((k) => !optional.includes(k)),
    },
  },
  language: {
    nodejs: { respectSchemaVersion: true },
    go: {
      importBasePath: "github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/storageuser",
      rootPackageName: "storageuser",
      generateResourceContainerTypes: false,
      respectSchemaVersion: true,
    },
    python: {
      packageName: "pulumi_storage_user",
      respectSchemaVersion: true,
      pyproject: { enabled: true },
      readme:
        "StorageUser creates a user of the object-storage service and hands its Swift, S3 and FTP credentials over as secret outputs: docs/python.md of pulumi-storage-user.",
    },
  },
};
