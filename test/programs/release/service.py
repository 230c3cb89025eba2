"""A service on the Automation API with one StorageUser, from a release's wheel: `service.py preview|up <work dir>`.

The settings come from the environment (STORAGE_API_URL, STORAGE_ACCESS_TOKEN); no `plugins` block: the engine installs
the plugin the SDK names (test/e2e/artifacts.test.ts). Prints one JSON line: the changes, and each output's secrecy
with the value of those that are not secret.
"""

import json
import sys

import pulumi
import pulumi_storage_user as storage
from pulumi import automation as auto


def program() -> None:
    user = storage.StorageUser("app", user_name="release-python-app")
    pulumi.export("userId", user.user_id)
    pulumi.export("s3", user.s3)


command, work = sys.argv[1], sys.argv[2]
stack = auto.create_or_select_stack(
    stack_name="dev", project_name="release-python", program=program, opts=auto.LocalWorkspaceOptions(work_dir=work)
)
if command == "preview":
    print(json.dumps({"changes": stack.preview().change_summary}))
else:
    result = stack.up()
    outputs = {k: {"secret": o.secret, "value": None if o.secret else o.value} for k, o in result.outputs.items()}
    print(json.dumps({"changes": result.summary.resource_changes, "outputs": outputs}))
