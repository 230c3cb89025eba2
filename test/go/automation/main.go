// Command automation is test/e2e/go.test.ts's Go service: the Automation API with an inline program
// built on the generated SDK (sdk/go), as a platform team's service would run StorageUsers. It
// reads one request as JSON on standard input (the token included: never on a command line),
// runs it against the stack and prints one JSON result on standard output.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/storageuser"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type configValue struct {
	Value  string `json:"value"`
	Secret bool   `json:"secret"`
}

type user struct {
	Name     string `json:"name"`
	UserName string `json:"userName,omitempty"`
	// Rotation: a new value replaces the user (pulumi.ReplacementTrigger).
	Trigger string `json:"trigger,omitempty"`
	// The explicit provider (of the request's providers) serving it; none: the default provider.
	Provider string `json:"provider,omitempty"`
}

// provider: one storage service's settings, as an explicit provider resource.
type provider struct {
	Name    string `json:"name"`
	BaseUrl string `json:"baseUrl"`
	Token   string `json:"token"`
}

type request struct {
	Op           string                 `json:"op"` // preview, up, destroy
	Project      string                 `json:"project"`
	Stack        string                 `json:"stack"`
	PluginDir    string                 `json:"pluginDir"`
	WorkDir      string                 `json:"workDir"` // the project's directory: Pulumi.yaml and the stack's config
	Config       map[string]configValue `json:"config"`
	RemoveConfig []string               `json:"removeConfig"`
	Users        []user                 `json:"users"`
	Providers    []provider             `json:"providers"`
	Replace      []string               `json:"replace"`
}

type output struct {
	Value  any  `json:"value"`
	Secret bool `json:"secret"`
}

type result struct {
	OK      bool              `json:"ok"`
	Error   string            `json:"error,omitempty"`
	Log     string            `json:"log"`
	Changes map[string]int    `json:"changes,omitempty"`
	Outputs map[string]output `json:"outputs,omitempty"`
}

func program(users []user, providers []provider) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		explicit := map[string]*storageuser.Provider{}
		for _, p := range providers {
			// The SDK marks AccessToken secret (the schema says so).
			res, err := storageuser.NewProvider(ctx, p.Name, &storageuser.ProviderArgs{BaseUrl: pulumi.String(p.BaseUrl), AccessToken: pulumi.String(p.Token)})
			if err != nil {
				return err
			}
			explicit[p.Name] = res
		}
		for _, u := range users {
			args := &storageuser.StorageUserArgs{}
			if u.UserName != "" {
				args.UserName = pulumi.String(u.UserName)
			}
			var opts []pulumi.ResourceOption
			if u.Provider != "" {
				opts = append(opts, pulumi.Provider(explicit[u.Provider]))
			}
			if u.Trigger != "" {
				opts = append(opts, pulumi.ReplacementTrigger(pulumi.String(u.Trigger)))
			}
			su, err := storageuser.NewStorageUser(ctx, u.Name, args, opts...)
			if err != nil {
				return err
			}
			ctx.Export(u.Name+".userId", su.UserId)
			ctx.Export(u.Name+".userName", su.UserName)
			ctx.Export(u.Name+".s3Endpoint", su.S3Endpoint)
			ctx.Export(u.Name+".s3", su.S3)
			ctx.Export(u.Name+".env", su.Env)
			ctx.Export(u.Name+".credentials", su.Credentials)
			ctx.Export(u.Name+".password", su.Password)
			ctx.Export(u.Name+".tasks", su.Tasks)
		}
		return nil
	}
}

func run(ctx context.Context, req request) (result, error) {
	var log strings.Builder
	project := workspace.Project{
		Name:    "go-users",
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
		// The package's executable plugin, started by the engine itself: no language host.
		Plugins: &workspace.Plugins{Providers: []workspace.PluginOptions{{Name: "storage-user", Path: req.PluginDir}}},
	}
	if req.Project != "" {
		project.Name = tokens.PackageName(req.Project)
	}
	stack, err := auto.UpsertStackInlineSource(ctx, req.Stack, string(project.Name), program(req.Users, req.Providers), auto.Project(project), auto.WorkDir(req.WorkDir))
	if err != nil {
		return result{}, err
	}
	for _, key := range req.RemoveConfig {
		if err := stack.RemoveConfig(ctx, key); err != nil {
			return result{}, err
		}
	}
	for key, v := range req.Config {
		if err := stack.SetConfig(ctx, key, auto.ConfigValue{Value: v.Value, Secret: v.Secret}); err != nil {
			return result{}, err
		}
	}
	res := result{Log: ""}
	switch req.Op {
	case "preview":
		p, err := stack.Preview(ctx, optpreview.ProgressStreams(&log), optpreview.ErrorProgressStreams(&log))
		res.Log = log.String()
		if err != nil {
			return res, err
		}
		res.Changes = changes(p.ChangeSummary)
	case "up":
		opts := []optup.Option{optup.ProgressStreams(&log), optup.ErrorProgressStreams(&log)}
		if len(req.Replace) > 0 {
			opts = append(opts, optup.Replace(req.Replace))
		}
		u, err := stack.Up(ctx, opts...)
		res.Log = log.String()
		if err != nil {
			return res, err
		}
		if u.Summary.ResourceChanges != nil {
			res.Changes = *u.Summary.ResourceChanges
		}
		res.Outputs = map[string]output{}
		for k, v := range u.Outputs {
			res.Outputs[k] = output{Value: v.Value, Secret: v.Secret}
		}
	case "destroy":
		_, err := stack.Destroy(ctx, optdestroy.ProgressStreams(&log), optdestroy.ErrorProgressStreams(&log))
		res.Log = log.String()
		if err != nil {
			return res, err
		}
	default:
		return res, fmt.Errorf("unknown op %q", req.Op)
	}
	res.OK = true
	return res, nil
}

func changes(m map[apitype.OpType]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "reading the request:", err)
		os.Exit(2)
	}
	res, err := run(context.Background(), req)
	if err != nil {
		res.OK = false
		res.Error = err.Error()
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(2)
	}
}
