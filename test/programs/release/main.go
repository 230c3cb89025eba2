// A service on the Automation API with one StorageUser, from a release's Go module: `service preview|up <work dir>`.
// The settings come from the environment (STORAGE_API_URL, STORAGE_ACCESS_TOKEN); no `plugins` block: the engine
// installs the plugin the SDK names (test/e2e/artifacts.test.ts). Prints one JSON line: the changes, and each output's
// secrecy with the value of those that are not secret.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/storageuser"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type output struct {
	Secret bool `json:"secret"`
	Value  any  `json:"value"`
}

func main() {
	ctx := context.Background()
	program := func(ctx *pulumi.Context) error {
		user, err := storageuser.NewStorageUser(ctx, "app", &storageuser.StorageUserArgs{
			UserName: pulumi.StringPtr("release-go-app"),
		})
		if err != nil {
			return err
		}
		ctx.Export("userId", user.UserId)
		ctx.Export("s3", user.S3)
		return nil
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "release-go", program, auto.WorkDir(os.Args[2]))
	if err != nil {
		fail(err)
	}
	var result any
	if os.Args[1] == "preview" {
		preview, err := stack.Preview(ctx)
		if err != nil {
			fail(err)
		}
		result = map[string]any{"changes": preview.ChangeSummary}
	} else {
		up, err := stack.Up(ctx)
		if err != nil {
			fail(err)
		}
		outputs := map[string]output{}
		for k, o := range up.Outputs {
			outputs[k] = output{Secret: o.Secret}
			if !o.Secret {
				outputs[k] = output{Value: o.Value}
			}
		}
		result = map[string]any{"changes": up.Summary.ResourceChanges, "outputs": outputs}
	}
	text, _ := json.Marshal(result)
	fmt.Println(string(text))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
