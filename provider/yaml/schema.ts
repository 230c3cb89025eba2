/**
 * The package schema the plugin serves (GetSchema): what the YAML host type-checks a program
 * against and what `pulumi package get-schema` prints. Written by hand: the SDK infers schemas
 * from TypeScript for components only. Descriptions follow the JSDoc of program/storage-user.ts.
 */
const str = (description: string) => ({ type: "string", description });
const connection = (fields: Record<string, string>) => ({
  type: "object",
  properties: Object.fromEntries(Object.entries(fields).map(([k, d]) => [k, str(d)])),
  required: Object.keys(fields),
});

const settings = {
  baseUrl: str("The storage API's root URL (https://…; http:// only to a loopback address). Fallback: STORAGE_API_URL in the environment of the pulumi command. Preview needs it; no request is sent."),
  accessToken: { ...str("The API token, refused unless secret (`pulumi config set --secret storage-user:accessToken`, value entered at the prompt or piped in). Fallback: STORAGE_ACCESS_TOKEN. Preview needs none; create does."), secret: true },
};

/** The Go SDK's module path (sdk/go/go.mod): where the repository is to be published (docs/go.md). */
export const goModulePath = "github.com/pulumi-storage-user/pulumi-storage-user/sdk/go";

export const typeToken = "storage-user:index:StorageUser";

export const schema = {
  name: "storage-user",
  displayName: "StorageUser",
  description: "StorageUser creates an object-storage user and hands its Swift, S3 and FTP credentials over as secret outputs.",
  license: "Apache-2.0",
  // Inputs and outputs are named as for TypeScript programs. Settings: `storage-user:baseUrl` and
  // a secret `storage-user:accessToken` in the stack config, or an explicit provider's arguments;
  // the environment (STORAGE_API_URL, STORAGE_ACCESS_TOKEN) as fallback (docs/yaml.md).
  config: { variables: settings },
  provider: { description: "Settings of one storage service; one explicit provider per service when a program uses several.", inputProperties: settings },
  types: {
    "storage-user:index:SwiftConnection": connection({ endpoint: "Swift endpoint.", tenantId: "Swift tenant id.", accessKey: "Swift access key.", password: "Swift password." }),
    "storage-user:index:S3Connection": connection({ endpoint: "S3 endpoint.", accessKey: "S3 access key.", secretKey: "S3 secret key." }),
    "storage-user:index:FtpConnection": connection({ hostName: "FTP host name.", login: "FTP login.", password: "FTP password." }),
    "storage-user:index:Credentials": {
      type: "object",
      properties: {
        name: str("The login as the service returned it."),
        password: str("The password."),
        swift: { $ref: "#/types/storage-user:index:SwiftConnection", description: "The Swift-style API connection." },
        s3: { $ref: "#/types/storage-user:index:S3Connection", description: "The S3-compatible API connection." },
        ftp: { $ref: "#/types/storage-user:index:FtpConnection", description: "The FTP connection." },
      },
      required: ["name", "password", "swift", "s3", "ftp"],
    },
    "storage-user:index:Task": {
      type: "object",
      properties: { id: { type: "integer" }, progressPercent: { type: "number" }, type: { type: "string" }, state: { type: "string" }, startDate: { type: "string" } },
      required: ["id", "progressPercent", "type", "state", "startDate"],
    },
  },
  resources: {
    [typeToken]: {
      description: "A user of the object-storage service. The API can only create: deleting or replacing it leaves the user on the service (warning USER_LEFT_STACK / REPLACE_LEAVES_USER).",
      inputProperties: {
        userName: str("The requested login. Left out, a name is generated on create (the resource name, \"-\", 7 random hex digits), kept on every update and new on every replace: that is how to rotate credentials (replacementTrigger)."),
        persistPassword: { type: "boolean", description: "Request member `PersistPassword`, sent as 1 or 0. Changing it creates a new user.", default: false },
        connection: str("Name of a connection (environment variables STORAGE_API_URL_<NAME> and STORAGE_ACCESS_TOKEN_<NAME>), for users on several services or accounts. Omitted: STORAGE_API_URL and STORAGE_ACCESS_TOKEN."),
      },
      properties: {
        userName: str("The requested login, as sent: the given userName, or the generated one."),
        persistPassword: { type: "boolean", description: "As sent." },
        connection: str("The connection's name, when given."),
        userId: { type: "integer", description: "The service's user Id (also the resource id)." },
        state: str("The user's state as the service reported it at creation."),
        tasks: { type: "array", items: { $ref: "#/types/storage-user:index:Task" }, description: "The service's tasks for this user at creation." },
        creationTaskId: { type: "integer", description: "Id of the StorageUserCreate task." },
        swiftEndpoint: str("Swift endpoint (plain)."),
        s3Endpoint: str("S3 endpoint (plain)."),
        ftpHostName: str("FTP host name (plain)."),
        baseUrl: str("The service the user was created on."),
        credentials: { $ref: "#/types/storage-user:index:Credentials", description: "Name, password and the three connections below, endpoints included. Secret.", secret: true },
        name: { ...str("The user's login name on the service. Secret."), secret: true },
        password: { ...str("The user's password. Secret."), secret: true },
        swift: { $ref: "#/types/storage-user:index:SwiftConnection", description: "Swift credentials. Secret.", secret: true },
        s3: { $ref: "#/types/storage-user:index:S3Connection", description: "S3 credentials. Secret.", secret: true },
        ftp: { $ref: "#/types/storage-user:index:FtpConnection", description: "FTP credentials. Secret.", secret: true },
        env: { type: "object", additionalProperties: { type: "string" }, description: "The credentials as environment variables (AWS_ACCESS_KEY_ID, ...). Secret.", secret: true },
        ftpUrl: { ...str("ftp://login:password@host/. Secret."), secret: true },
        account: str("State as recorded (JSON text); the outputs above are derived from it."),
        secrets: { ...str("State as recorded (JSON text). Secret."), secret: true },
      },
      required: ["userName", "persistPassword"],
    },
  },
  language: {
    nodejs: { respectSchemaVersion: true },
    // The Go SDK (sdk/go, its own module; docs/go.md): generated by tools/go-sdkgen.
    go: { importBasePath: goModulePath + "/storageuser", rootPackageName: "storageuser", generateResourceContainerTypes: false },
  },
};
