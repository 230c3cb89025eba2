"""Every StorageUser output as Python sees it, on the service of examples/python: whether
Output.is_secret() says secret inside the program, and whether the Automation API's stack outputs
mark it secret. Prints {name: {"program": bool, "stack": bool or null}} and no value.

    python outputs.py <schema property name>...   (the settings as for tenants)
"""

import json
import os
import re
import sys
from pathlib import Path

import pulumi
import pulumi_storage_user as storage
import tenants

names = sys.argv[1:]


def program() -> None:
    user = storage.StorageUser("outputs", user_name="python-outputs")
    for name in names:
        output = getattr(user, re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower())
        pulumi.export(name, output)
        pulumi.export(f"{name} is secret", pulumi.Output.from_input(output.is_secret()))


service = tenants.Service(
    plugin_dir=Path(os.environ["STORAGE_USER_PLUGIN_DIR"]),
    work_dir=Path(os.environ["TENANTS_WORK_DIR"]),
    base_url=os.environ.pop("STORAGE_API_URL"),
    token=os.environ.pop("STORAGE_ACCESS_TOKEN"),
)
service.write_project()
outputs = service.stack("outputs", program).up(on_output=tenants.progress).outputs
seen = {n: {"program": outputs[f"{n} is secret"].value, "stack": outputs[n].secret if n in outputs else None} for n in names}
print(json.dumps(seen))
