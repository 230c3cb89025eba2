// Command sdkgen writes an SDK of a Pulumi package from its schema, with Pulumi's own code
// generators (pkg/v3/codegen/go and codegen/python), the code `pulumi package gen-sdk` runs
// inside the language hosts, which the Go module proxy here does not serve.
//
//	sdkgen go|python <schema.json> <out dir>
//
// Writes every file the generator returns under <out dir> (e.g. storageuser/storageUser.go,
// pulumi_storage_user/storage_user.py) and prints their paths. It neither deletes nor writes
// anything else: Go's go.mod and go.sum are the module's own (sdk/go), and the caller decides what
// stale files mean.
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi-storage-user sdkgen"

// testing.py becomes pulumi_storage_user/testing.py: mocks for unit tests that keep secrets (docs/python.md).
//
//go:embed testing.py
var pythonTesting []byte

var generators = map[string]struct {
	importer schema.Language
	generate func(*schema.Package) (map[string][]byte, error)
}{
	"go": {gogen.Importer, func(p *schema.Package) (map[string][]byte, error) {
		return gogen.GeneratePackage(tool, p, nil)
	}},
	"python": {pygen.Importer, func(p *schema.Package) (map[string][]byte, error) {
		// The loader resolves the schema's package dependencies; it has none.
		files, err := pygen.GeneratePackage(tool, p, map[string][]byte{"testing.py": pythonTesting}, nil)
		// pyproject.toml names a README.md beside it, which the generator writes only inside the package.
		for name, text := range files {
			if filepath.Base(name) == "README.md" {
				files["README.md"] = text
			}
		}
		return files, err
	}},
}

func main() {
	if len(os.Args) != 4 || generators[os.Args[1]].generate == nil {
		fmt.Fprintln(os.Stderr, "usage: sdkgen go|python <schema.json> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}

func run(language, schemaPath, outDir string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("reading %s: %w", schemaPath, err)
	}
	gen := generators[language]
	pkg, err := schema.ImportSpec(spec, map[string]schema.Language{language: gen.importer}, schema.NewNullLoader(), schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("the schema is invalid: %w", err)
	}
	files, err := gen.generate(pkg)
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
