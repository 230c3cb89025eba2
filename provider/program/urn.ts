import * as pulumi from "@pulumi/pulumi";

/**
 * The URN the engine will give a resource of this package, passed to the plugin as the
 * `__urn` input so its warnings are shown under (and delivered with) that resource. A string
 * when the resource has no parent but the stack, as most do (createUrn makes Outputs).
 */
export function urnOf(
  name: string,
  kind: "StorageUser" | "StorageUserLedger",
  parent: pulumi.Resource | undefined,
): pulumi.Input<string> {
  const type = `pulumi-nodejs:dynamic/storage:${kind}`;
  return parent
    ? pulumi.createUrn(name, type, parent)
    : `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`;
}
