// modzip (main.go): a Go module version laid out as a module proxy serves it. Build: build.sh.
module pulumi-storage-user/tools/modzip

go 1.26.6

require golang.org/x/mod v0.41.0
