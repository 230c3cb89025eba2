"""One StorageUser: its credentials as secret stack outputs, and an application's config built from them."""

import pulumi
import pulumi_storage_user as storage

# `pulumi config set rotation <new value>` then `pulumi up`: a new user, new credentials.
rotation = pulumi.Config().get("rotation") or ""
# user_name left out: app-<7 random hex>, a new one on every replacement.
app = storage.StorageUser("app", opts=pulumi.ResourceOptions(replacement_trigger=rotation))

# rclone's configuration of the user's S3 access: secret, as the credentials in it are.
rclone_conf = pulumi.Output.format(
    "[storage]\ntype = s3\nprovider = Other\nendpoint = {0}\naccess_key_id = {1}\nsecret_access_key = {2}\n",
    app.s3.endpoint,
    app.s3.access_key,
    app.s3.secret_key,
)

pulumi.export("userId", app.user_id)  # plain
pulumi.export("userName", app.user_name)  # plain
pulumi.export("env", app.env)  # secret: AWS_*, OS_*, FTP_* for an application
pulumi.export("rcloneConf", rclone_conf)  # secret
