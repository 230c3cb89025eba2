// modzip writes one version of a Go module the way a module proxy serves it, for GOPROXY=file://<out>:
// <out>/<module path>/@v/v<version>.zip, .mod and .info, and the version in list. The zip is made by
// golang.org/x/mod/zip, the code the go command itself uses, so it holds what `go mod download` would.
//
//	modzip <module dir> <version> <commit time, RFC 3339> <out>
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: modzip <module dir> <version> <commit time> <out>")
		os.Exit(2)
	}
	if err := write(os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func write(dir, version, time, out string) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escPath, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	at := filepath.Join(out, escPath, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(at, escVersion+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(f, mv, dir); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, escVersion+".mod"), gomod, 0o644); err != nil {
		return err
	}
	info, _ := json.Marshal(struct{ Version, Time string }{version, time})
	if err := os.WriteFile(filepath.Join(at, escVersion+".info"), append(info, '\n'), 0o644); err != nil {
		return err
	}
	list, _ := os.ReadFile(filepath.Join(at, "list"))
	versions := strings.Fields(string(list))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	return os.WriteFile(filepath.Join(at, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
