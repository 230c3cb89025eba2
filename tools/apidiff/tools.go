//go:build tools

// Package tools pins golang.org/x/exp/cmd/apidiff in this module's go.mod and go.sum: build.sh
// builds that command at the version required here.
package tools

import _ "golang.org/x/exp/cmd/apidiff"
