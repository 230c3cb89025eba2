// Command go-sdkgen writes the Go SDK of a Pulumi package from its schema, with Pulumi's own Go
// code generator (pkg/v3/codegen/go), the code `pulumi package gen-sdk --language go` runs inside
// the Go language host, which the Go module proxy here does not serve.
//
//	go-sdkgen <schema.json> <out dir>
//
// Writes every file the generator returns under <out dir> (e.g. storageuser/storageUser.go) and
// prints their paths. It neither deletes nor writes anything else: the SDK's go.mod and go.sum
// are the module's own (sdk/go), and the caller decides what stale files mean.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-sdkgen <schema.json> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "go-sdkgen:", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("reading %s: %w", schemaPath, err)
	}
	pkg, err := schema.ImportSpec(spec, map[string]schema.Language{"go": gogen.Importer}, schema.NewNullLoader(), schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("the schema is invalid: %w", err)
	}
	files, err := gogen.GeneratePackage("pulumi-storage-user go-sdkgen", pkg, nil)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		target := filepath.Join(outDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(name)
	}
	return nil
}
