// Issue 2's proof of the chain: real CLI -> program -> dynamic-provider plugin -> HTTP POST to
// the local API -> state, with a minimal provider of its own (not StorageUser).
import { expect, test } from "vitest";
import { startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";

test("pulumi up creates exactly one user and records the answer; destroy succeeds", async () => {
  const token = "chain-token-123456";
  const api = await startApiServer({ token });
  const stack = await TestStack.create({
    programDir: "test/programs/plain-post",
    config: { "plain-post:userName": "chain-user" },
    env: { STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: token },
  });
  try {
    const up = await stack.up();
    expect(up.code, up.output).toBe(0);
    expect(api.users).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({
      method: "POST",
      path: "/storage/users",
      authorized: true,
      contentType: "application/json",
    });
    expect(await stack.outputs()).toEqual({ userId: api.users[0].Id, state: "New", taskType: "StorageUserCreate" });
    const [resource] = await stack.resources("pulumi-nodejs:dynamic:Resource");
    expect(resource.id).toBe(String(api.users[0].Id));

    const destroy = await stack.destroy();
    expect(destroy.code, destroy.output).toBe(0);
    expect(await stack.resources("pulumi-nodejs:dynamic:Resource")).toHaveLength(0);
    expect(api.createAttempts).toBe(1);
  } finally {
    await stack.dispose();
    await api.close();
  }
});
