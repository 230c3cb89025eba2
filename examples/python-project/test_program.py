"""Unit tests of program.py under mocks: no engine, no API, no token (`python -m unittest`)."""

import unittest
from typing import Any, Optional

import pulumi
from pulumi_storage_user.testing import set_mocks


class Mocks(pulumi.runtime.Mocks):
    """A resource's outputs: its inputs, and for a StorageUser made-up ids and credentials."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[Optional[str], dict[str, Any]]:
        if args.typ != "storage-user:index:StorageUser":
            return f"{args.name}-id", args.inputs
        s3 = {"endpoint": "https://s3.example.test", "accessKey": "AK-test", "secretKey": "SK-test"}
        env = {"AWS_ACCESS_KEY_ID": "AK-test", "AWS_SECRET_ACCESS_KEY": "SK-test"}
        return "1001", {**args.inputs, "userId": 1001, "userName": f"{args.name}-0a1b2c3", "s3": s3, "env": env}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], Optional[list[tuple[str, str]]]]:
        return {}, None


# Before the program is imported. Pulumi's own pulumi.runtime.set_mocks would leave env and s3 plain.
set_mocks(Mocks(), preview=False)
import program  # noqa: E402


class TestProgram(unittest.TestCase):
    @pulumi.runtime.test
    def test_credentials_and_the_config_built_from_them_are_secret(self) -> pulumi.Output[None]:
        outputs = [program.app.env, program.app.s3.access_key, program.rclone_conf]

        def check(secret: list[bool]) -> None:
            self.assertEqual(secret, [True, True, True])

        return pulumi.Output.all(*[o.is_secret() for o in outputs]).apply(check)

    @pulumi.runtime.test
    def test_the_ids_are_plain(self) -> pulumi.Output[None]:
        def check(secret: list[bool]) -> None:
            self.assertEqual(secret, [False, False])

        return pulumi.Output.all(program.app.user_id.is_secret(), program.app.user_name.is_secret()).apply(check)

    @pulumi.runtime.test
    def test_rclone_gets_the_users_s3_credentials(self) -> pulumi.Output[None]:
        def check(conf: str) -> None:
            self.assertIn("access_key_id = AK-test\nsecret_access_key = SK-test\n", conf)

        return program.rclone_conf.apply(check)


if __name__ == "__main__":
    unittest.main()
