"""Tenants: a small self-service backend on Pulumi's Automation API.

It onboards tenants, one StorageUser each (one stack per tenant, an inline Python program), and
hands each tenant's credentials, as environment variables, to its caller on standard output:

    tenants preview  <tenant>...   what onboarding would do (needs no token)
    tenants onboard  <tenant>...   create or keep each tenant's user; prints {"tenant","userId","env"} per line
    tenants rotate   <tenant>...   new credentials: a new user replaces the old one (replacement_trigger)
    tenants offboard <tenant>...   destroy the tenant's stack (the user stays on the service: the API cannot delete)

With TENANTS_ROTATE_AFTER set (a period such as 90d), users are onboarded with generated names and
rotate_after: the first onboard after a user is that old replaces it, handing over new credentials.

Settings, all from the environment of the service: STORAGE_API_URL, STORAGE_ACCESS_TOKEN (set into
each tenant's stack config, the token as a secret, then removed from the environment the Pulumi
CLI sees), STORAGE_USER_PLUGIN_DIR (the package's executable plugin), TENANTS_WORK_DIR (the project
directory holding each stack's config; default ./workspace), and Pulumi's own PULUMI_BACKEND_URL
and PULUMI_CONFIG_PASSPHRASE.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pulumi
import pulumi_storage_user as storage
from pulumi import automation as auto

PROJECT = "tenants"
TENANT_NAME = re.compile(r"^[a-z][a-z0-9-]{1,30}$")


def program(tenant: str, rotate_after: Optional[str] = None) -> auto.PulumiFn:
    """The tenant's storage user, its login named after the tenant, replaced when the stack's
    tenants:rotation changes; with a rotate_after period, its login generated and the user replaced
    once that old too."""

    def run() -> None:
        rotation: Optional[str] = pulumi.Config(PROJECT).get("rotation")
        suffix = f"storage-r{rotation}" if rotation else "storage"
        user = storage.StorageUser(
            "storage",
            user_name=None if rotate_after else f"{tenant}-{suffix}",
            rotate_after=rotate_after,
            opts=pulumi.ResourceOptions(replacement_trigger=rotation or ""),
        )
        pulumi.export("userId", user.user_id)
        pulumi.export("env", user.env)

    return run


def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Service:
    plugin_dir: Path
    work_dir: Path
    base_url: str
    token: str
    rotate_after: Optional[str] = None

    def write_project(self) -> None:
        """The project file of the workspace. Python's ProjectSettings has no `plugins`, so the
        service writes Pulumi.yaml itself and gives the Automation API no project settings: it then
        keeps this file. The package's executable plugin: the engine starts it, no language host."""
        self.work_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        (self.work_dir / "Pulumi.yaml").write_text(
            f"name: {PROJECT}\n"
            "runtime: python\n"
            "plugins:\n"
            "  providers:\n"
            "    - name: storage-user\n"
            f"      path: {json.dumps(str(self.plugin_dir))}\n"
        )

    def stack(self, name: str, program: auto.PulumiFn) -> auto.Stack:
        stack = auto.create_or_select_stack(
            stack_name=name,
            project_name=PROJECT,
            program=program,
            opts=auto.LocalWorkspaceOptions(work_dir=str(self.work_dir)),
        )
        # The provider's settings, the Pulumi way: the stack's config, the token encrypted.
        stack.set_config("storage-user:baseUrl", auto.ConfigValue(value=self.base_url))
        if self.token:
            # Not stack.set_config: it passes the value to `pulumi config set` as an argument, which
            # any process list shows (pulumi.automation LocalWorkspace.set_config); the CLI reads it
            # from standard input instead, run as the workspace runs it.
            ws = stack.workspace
            subprocess.run(
                [ws.pulumi_command.command, "config", "set", "--secret", "--stack", name, "storage-user:accessToken"],
                input=self.token,
                text=True,
                cwd=ws.work_dir,
                env={**os.environ, **ws.env_vars},
                capture_output=True,
                check=True,
            )
        return stack

    def run(self, command: str, tenant: str) -> None:
        stack = self.stack(f"tenant-{tenant}", program(tenant, self.rotate_after))
        if command == "preview":
            result = stack.preview(on_output=progress)
            progress(f"tenant {tenant}: {result.change_summary}")
            return
        if command == "offboard":
            stack.destroy(on_output=progress)
            return
        if command == "rotate":
            current = stack.get_all_config().get(f"{PROJECT}:rotation")
            rotation = int(current.value) + 1 if current else 1
            stack.set_config(f"{PROJECT}:rotation", auto.ConfigValue(value=str(rotation)))
        outputs = stack.up(on_output=progress).outputs
        hand_over = {"tenant": tenant, "userId": outputs["userId"].value, "env": outputs["env"].value}
        print(json.dumps(hand_over), flush=True)


def tenant_name(value: str) -> str:
    if not TENANT_NAME.match(value):
        raise argparse.ArgumentTypeError(
            f"{value!r}: use 2 to 31 lower-case letters, digits and -, starting with a letter"
        )
    return value


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="tenants", description="StorageUsers for tenants, on the Automation API.")
    parser.add_argument("command", choices=["preview", "onboard", "rotate", "offboard"])
    parser.add_argument("tenants", nargs="+", type=tenant_name, metavar="tenant")
    args = parser.parse_args(argv)
    plugin_dir = os.environ.get("STORAGE_USER_PLUGIN_DIR")
    if not plugin_dir:
        parser.error("set STORAGE_USER_PLUGIN_DIR to the directory of pulumi-resource-storage-user (README.md)")
    service = Service(
        plugin_dir=Path(plugin_dir).resolve(),
        work_dir=Path(os.environ.get("TENANTS_WORK_DIR", "workspace")).resolve(),
        base_url=os.environ.get("STORAGE_API_URL", ""),
        # From here on the settings live in the stacks' config only: the Pulumi CLI and the plugin
        # it starts inherit this environment.
        token=os.environ.pop("STORAGE_ACCESS_TOKEN", ""),
        rotate_after=os.environ.get("TENANTS_ROTATE_AFTER") or None,
    )
    os.environ.pop("STORAGE_API_URL", None)
    service.write_project()
    for tenant in args.tenants:
        try:
            service.run(args.command, tenant)
        except auto.CommandError as err:
            print(f"tenant {tenant}: {err}", file=sys.stderr)
            return 1
        except subprocess.CalledProcessError as err:
            print(f"tenant {tenant}: {' '.join(err.cmd)} failed: {err.stderr}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
