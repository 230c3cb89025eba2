// apidiff (golang.org/x/exp/cmd/apidiff), pinned: the Go SDK's compatibility check between two
// releases (scripts/surface.ts). Build: build.sh.
module pulumi-storage-user/tools/apidiff

go 1.26.6

require golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.1-0.20261106145633-d407941a339a // indirect
)
