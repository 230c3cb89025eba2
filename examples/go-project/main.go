// Command go-users is a Pulumi program (`pulumi up` builds and runs it through Pulumi's Go
// language host): one StorageUser, its credentials exported as secret stack outputs.
package main

import (
	"github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/storageuser"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// `pulumi config set rotation <new value>` then `pulumi up`: a new user, new credentials.
		rotation := config.Get(ctx, "rotation")
		// UserName left out: app-<7 random hex>, a new one on every replacement.
		app, err := storageuser.NewStorageUser(ctx, "app", nil, pulumi.ReplacementTrigger(pulumi.String(rotation)))
		if err != nil {
			return err
		}
		ctx.Export("userId", app.UserId)     // plain
		ctx.Export("userName", app.UserName) // plain
		ctx.Export("s3", app.S3)             // secret: endpoint, accessKey, secretKey
		ctx.Export("env", app.Env)           // secret: AWS_*, OS_*, FTP_* for an application
		return nil
	})
}
