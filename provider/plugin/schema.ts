// The schema the plugin serves: what YAML programs are checked against and the Go SDK is generated from
// (tools/go-sdkgen), all of it from the description (model.ts).
import { answer, inputs, isSecret, outputNames, outputs } from "../model";

const str = (description: string) => ({ type: "string", description });
const settings = {
  baseUrl: str(
    "The storage API's root URL (https://…; http:// only to a loopback address). Fallback: STORAGE_API_URL in the environment of the pulumi command. Preview needs it; no request is sent.",
  ),
  accessToken: {
    ...str(
      "The API token, refused unless secret (`pulumi config set --secret storage-user:accessToken`, value entered at the prompt or piped in). Fallback: STORAGE_ACCESS_TOKEN. Preview needs none; create does.",
    ),
    secret: true,
  },
};
const object = (properties: Record<string, object>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
});
const token = (type: string) => `storage-user:index:${type}`;
const typeNames = { swift: "SwiftConnection", s3: "S3Connection", ftp: "FtpConnection" } as const;
const connections = Object.entries(typeNames) as [keyof typeof typeNames, string][];
// Not set after every create: a default connection has none; an answer may list no creation task.
const optional = new Set<string>(["connection", "creationTaskId"]);

export const typeToken = token("StorageUser");
export const schema = {
  name: "storage-user",
  displayName: "StorageUser",
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json is outside rootDir for import
  version: (require("pulumi-storage-user/package.json") as { version: string }).version,
  description:
    "StorageUser creates an object-storage user and hands its Swift, S3 and FTP credentials over as secret outputs.",
  license: "Apache-2.0",
  config: { variables: settings },
  provider: {
    description: "Settings of one storage service; one explicit provider per service when a program uses several.",
    inputProperties: settings,
  },
  types: {
    ...Object.fromEntries(
      connections.map(([name, type]) => [
        token(type),
        object(
          Object.fromEntries(
            Object.entries(answer[name][1]).map(([k, [f]]: [string, readonly [string, string]]) => [
              k,
              str(`\`${answer[name][0]}.${f}\` of the API's answer.`),
            ]),
          ),
        ),
      ]),
    ),
    [token("Credentials")]: object({
      name: str("The login as the service returned it."),
      password: str("The password."),
      ...Object.fromEntries(
        connections.map(([name, type]) => [
          name,
          { $ref: `#/types/${token(type)}`, description: `\`${answer[name][0]}\`.` },
        ]),
      ),
    }),
    [token("Task")]: object({
      id: { type: "integer", description: "`Id`." },
      progressPercent: { type: "number", description: "`ProgressPercent` at creation." },
      type: str("`Type`, e.g. StorageUserCreate."),
      state: str("`State`, e.g. New."),
      startDate: str("`StartDate`, as the service wrote it."),
    }),
  },
  resources: {
    [typeToken]: {
      description:
        "A user of the object-storage service. The API can only create: deleting or replacing it leaves the user on the service (warning USER_LEFT_STACK / REPLACE_LEAVES_USER).",
      inputProperties: Object.fromEntries(
        Object.entries(inputs).map(([k, i]) => [k, { ...i.schema, description: i.description }]),
      ),
      properties: {
        ...Object.fromEntries(
          Object.entries(inputs).map(([k, i]) => [k, { type: i.schema.type, description: i.output }]),
        ),
        ...Object.fromEntries(
          outputNames.map((k) => [
            k,
            { ...outputs[k].schema, description: outputs[k].description, ...(isSecret(k) ? { secret: true } : {}) },
          ]),
        ),
      },
      required: [...Object.keys(inputs), ...outputNames].filter((k) => !optional.has(k)),
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
  },
};
