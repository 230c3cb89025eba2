// Command tenants is a small self-service backend on Pulumi's Automation API: it onboards
// tenants, one StorageUser each (one stack per tenant, an inline Go program), and hands each
// tenant's credentials, as environment variables, to its caller on standard output.
//
//	tenants preview  <tenant>...   what onboarding would do (needs no token)
//	tenants onboard  <tenant>...   create or keep each tenant's user; prints {"tenant","userId","env"} per line
//	tenants rotate   <tenant>...   new credentials: a new user replaces the old one (ReplacementTrigger)
//	tenants offboard <tenant>...   destroy the tenant's stack (the user stays on the service: the API cannot delete)
//
// With TENANTS_ROTATE_AFTER set (a period such as 90d), users are onboarded with generated names and
// rotateAfter: the first onboard after a user is that old replaces it, handing over new credentials.
//
// Settings, all from the environment of the service: STORAGE_API_URL, STORAGE_ACCESS_TOKEN (set
// into each tenant's stack config, the token as a secret, then removed from the environment the
// Pulumi CLI sees), STORAGE_USER_PLUGIN_DIR (the package's executable plugin), TENANTS_WORK_DIR
// (the project directory holding each stack's config; default ./workspace), and Pulumi's own
// PULUMI_BACKEND_URL and PULUMI_CONFIG_PASSPHRASE.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/storageuser"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

const project = "tenants"

var tenantName = regexp.MustCompile(`^[a-z][a-z0-9-]{1,30}$`)

// program: the tenant's storage user, its login named after the tenant, replaced when the
// stack's tenants:rotation changes; with a rotateAfter period, its login generated and the user
// replaced once that old too.
func program(tenant, rotateAfter string) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		rotation := config.New(ctx, project).Get("rotation")
		args := &storageuser.StorageUserArgs{UserName: pulumi.String(fmt.Sprintf("%s-%s", tenant, rotationSuffix(rotation)))}
		if rotateAfter != "" {
			args = &storageuser.StorageUserArgs{RotateAfter: pulumi.String(rotateAfter)}
		}
		user, err := storageuser.NewStorageUser(ctx, "storage", args, pulumi.ReplacementTrigger(pulumi.String(rotation)))
		if err != nil {
			return err
		}
		ctx.Export("userId", user.UserId)
		ctx.Export("env", user.Env)
		return nil
	}
}

func rotationSuffix(rotation string) string {
	if rotation == "" {
		return "storage"
	}
	return "storage-r" + rotation
}

type service struct {
	pluginDir, workDir, baseUrl, token, rotateAfter string
}

func (s service) stack(ctx context.Context, tenant string) (auto.Stack, error) {
	proj := workspace.Project{
		Name:    project,
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
		// The package's executable plugin: the engine starts it, no language host needed.
		Plugins: &workspace.Plugins{Providers: []workspace.PluginOptions{{Name: "storage-user", Path: s.pluginDir}}},
	}
	st, err := auto.UpsertStackInlineSource(ctx, "tenant-"+tenant, project, program(tenant, s.rotateAfter), auto.Project(proj), auto.WorkDir(s.workDir))
	if err != nil {
		return st, err
	}
	// The provider's settings, the Pulumi way: the stack's config, the token encrypted.
	if err := st.SetConfig(ctx, "storage-user:baseUrl", auto.ConfigValue{Value: s.baseUrl}); err != nil {
		return st, err
	}
	if s.token != "" {
		// Not st.SetConfig: it passes the value to `pulumi config set` as an argument, which any
		// process list shows (auto.LocalWorkspace.SetConfigWithOptions); the CLI reads it from
		// standard input instead, in the workspace's directory and environment.
		cmd := exec.CommandContext(ctx, "pulumi", "config", "set", "--secret", "--stack", st.Name(), "storage-user:accessToken")
		cmd.Dir, cmd.Stdin, cmd.Env = st.Workspace().WorkDir(), strings.NewReader(s.token), os.Environ()
		for k, v := range st.Workspace().GetEnvVars() {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return st, fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, out)
		}
	}
	return st, nil
}

type handOver struct {
	Tenant string            `json:"tenant"`
	UserID any               `json:"userId"`
	Env    map[string]string `json:"env"`
}

func (s service) run(ctx context.Context, command, tenant string) error {
	st, err := s.stack(ctx, tenant)
	if err != nil {
		return err
	}
	switch command {
	case "preview":
		res, err := st.Preview(ctx, optpreview.ProgressStreams(os.Stderr))
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "tenant %s: %v\n", tenant, res.ChangeSummary)
		return nil
	case "rotate":
		cfg, err := st.GetConfig(ctx, project+":rotation")
		n := 0
		if err == nil {
			n, _ = strconv.Atoi(cfg.Value)
		}
		if err := st.SetConfig(ctx, project+":rotation", auto.ConfigValue{Value: strconv.Itoa(n + 1)}); err != nil {
			return err
		}
		fallthrough
	case "onboard":
		res, err := st.Up(ctx, optup.ProgressStreams(os.Stderr))
		if err != nil {
			return err
		}
		env := map[string]string{}
		if m, ok := res.Outputs["env"].Value.(map[string]any); ok {
			for k, v := range m {
				env[k] = fmt.Sprint(v)
			}
		}
		return json.NewEncoder(os.Stdout).Encode(handOver{Tenant: tenant, UserID: res.Outputs["userId"].Value, Env: env})
	case "offboard":
		_, err := st.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		return err
	}
	return fmt.Errorf("unknown command %q", command)
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: tenants preview|onboard|rotate|offboard <tenant>...")
		os.Exit(2)
	}
	pluginDir, err := filepath.Abs(os.Getenv("STORAGE_USER_PLUGIN_DIR"))
	if err != nil || os.Getenv("STORAGE_USER_PLUGIN_DIR") == "" {
		fmt.Fprintln(os.Stderr, "set STORAGE_USER_PLUGIN_DIR to the directory of pulumi-resource-storage-user (README.md)")
		os.Exit(2)
	}
	workDir := os.Getenv("TENANTS_WORK_DIR")
	if workDir == "" {
		workDir = "workspace"
	}
	if workDir, err = filepath.Abs(workDir); err == nil {
		err = os.MkdirAll(workDir, 0o700)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := service{pluginDir: pluginDir, workDir: workDir, baseUrl: os.Getenv("STORAGE_API_URL"), token: os.Getenv("STORAGE_ACCESS_TOKEN"), rotateAfter: os.Getenv("TENANTS_ROTATE_AFTER")}
	// From here on the settings live in the stacks' config only: the Pulumi CLI and the plugin it
	// starts inherit this environment.
	os.Unsetenv("STORAGE_API_URL")
	os.Unsetenv("STORAGE_ACCESS_TOKEN")
	command := os.Args[1]
	for _, tenant := range os.Args[2:] {
		if !tenantName.MatchString(tenant) {
			fmt.Fprintf(os.Stderr, "tenant %q: use 2 to 31 lower-case letters, digits and -, starting with a letter\n", tenant)
			os.Exit(2)
		}
		if err := s.run(context.Background(), command, tenant); err != nil {
			fmt.Fprintf(os.Stderr, "tenant %s: %v\n", tenant, err)
			os.Exit(1)
		}
	}
}
