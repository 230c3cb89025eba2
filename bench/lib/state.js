"use strict";
/**
 * What a raw state file (the file:// backend's <stack>.json, compact JSON) spends per resource.
 * JSON.stringify of the parsed checkpoint reproduces the file byte for byte (checked), so each
 * resource's share is the length of its own serialization plus the comma between entries.
 */
const ENGINE_FIELDS = ["urn", "custom", "id", "type", "parent", "provider", "propertyDependencies", "created", "modified", "sourcePosition", "stackTrace", "dependencies", "protect", "delete", "external", "initErrors", "retainOnDelete", "deletedWith"];
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const bytes = (v) => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));
/** A key's share of an object: `"key":value,` */
const entryBytes = (k, v) => bytes(k) + 1 + bytes(v) + 1;
const isSecret = (v) => v && typeof v === "object" && v[SECRET_SIG] === "1b47061264138c4ac30d75fd1eb44270";

/**
 * @param raw the state file text
 * @param type resource type to measure
 * @param credentialKeys output keys that hold the user's own credentials (StorageUser: the one
 *   secret `credentials`; a peer that stores the API's answer as it is: name, password, swift, s3, ftp)
 */
function analyzeState(raw, type, credentialKeys) {
  const state = JSON.parse(raw);
  const checkpoint = state.checkpoint ?? state;
  const all = checkpoint.latest?.resources ?? [];
  const resources = all.filter((r) => r.type === type);
  const exact = JSON.stringify(state).length === raw.length;
  const per = resources.map((r) => {
    const total = bytes(r) + 1;
    const b = { total, credentials: 0, provider: 0, engine: 0, otherInputs: 0, otherOutputs: 0, otherFields: 0, secretValues: 0 };
    for (const [k, v] of Object.entries(r)) {
      if (k === "inputs" || k === "outputs") {
        b[k === "inputs" ? "otherInputs" : "otherOutputs"] += bytes(k) + 4; // "key":{...},
        for (const [ik, iv] of Object.entries(v ?? {})) {
          const e = entryBytes(ik, iv);
          if (isSecret(iv)) b.secretValues++;
          if (ik === "__provider") b.provider += e;
          else if (k === "outputs" && credentialKeys.includes(ik)) b.credentials += e;
          else b[k === "inputs" ? "otherInputs" : "otherOutputs"] += e;
        }
      } else if (ENGINE_FIELDS.includes(k)) b.engine += entryBytes(k, v);
      else b.otherFields += entryBytes(k, v);
    }
    return b;
  });
  const mean = (key) => (per.length ? per.reduce((s, b) => s + b[key], 0) / per.length : undefined);
  const first = resources[0];
  const providerText = first?.inputs?.__provider ?? first?.outputs?.__provider;
  return {
    fileBytes: Buffer.byteLength(raw),
    reserializesExactly: exact,
    resources: resources.length,
    perResource: Object.fromEntries(Object.keys(per[0] ?? {}).map((k) => [k, mean(k)])),
    providerBytes: providerText === undefined ? undefined : Buffer.byteLength(providerText),
    providerCopies: first ? ["inputs", "outputs"].filter((k) => first[k]?.__provider !== undefined).length : 0,
    outputKeys: first ? Object.keys(first.outputs ?? {}) : [],
    fieldBytes: first ? Object.fromEntries(Object.entries(first.outputs ?? {}).map(([k, v]) => [k, entryBytes(k, v)])) : {},
    providerText,
  };
}

/** Which of the given secret values appear in the text as they are. */
function findPlaintext(raw, values) {
  const found = values.filter((v) => v && v.length >= 8 && raw.includes(v));
  return { checked: values.length, foundInPlaintext: found.length };
}

module.exports = { analyzeState, findPlaintext };
