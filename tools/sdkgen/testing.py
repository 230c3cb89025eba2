"""Unit tests of programs under Pulumi's mocks, with secrets kept as the engine keeps them.

Pulumi's ``pulumi.runtime.set_mocks`` drops ``additional_secret_outputs``, which the engine honours:
under it a StorageUser's ``env`` or ``s3.access_key`` is not secret. Call :func:`set_mocks` instead
(the same arguments): each output a resource lists there, the credentials of a StorageUser among
them, then comes back secret. The values are your mocks' (docs/python.md in pulumi-storage-user).
"""

from typing import Any, Optional, Sequence

import pulumi
from pulumi.runtime.mocks import MockMonitor

# Nothing for ``from pulumi_storage_user import *``, which the generated package runs on this module.
__all__: list[str] = []

# Pulumi's wire format of a secret value: {SIG_KEY: SECRET_SIG, "value": <the value>}.
SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"


class SecretOutputsMonitor(MockMonitor):
    """Pulumi's mock monitor, which marks secret the outputs each resource asks to keep secret."""

    def RegisterResource(self, request: Any) -> Any:
        register: Any = super().RegisterResource  # MockMonitor is untyped
        response = register(request)
        _mark_secret(response.object, request.additionalSecretOutputs)
        return response

    def ReadResource(self, request: Any) -> Any:
        read: Any = super().ReadResource
        response = read(request)
        _mark_secret(response.properties, request.additionalSecretOutputs)
        return response


def _mark_secret(outputs: Any, names: Sequence[str]) -> None:
    """Wraps each named field of a protobuf Struct in the secret signature."""
    for name in names:
        if name in outputs.fields:
            value = outputs.fields[name]
            kept = type(value)()
            kept.CopyFrom(value)
            value.Clear()
            value.struct_value.fields[SIG_KEY].string_value = SECRET_SIG
            value.struct_value.fields["value"].CopyFrom(kept)


def set_mocks(
    mocks: pulumi.runtime.Mocks,
    project: Optional[str] = None,
    stack: Optional[str] = None,
    preview: Optional[bool] = None,
) -> None:
    """``pulumi.runtime.set_mocks`` with a :class:`SecretOutputsMonitor`; call it before the program is imported."""
    pulumi.runtime.set_mocks(mocks, project, stack, preview, monitor=SecretOutputsMonitor(mocks))
