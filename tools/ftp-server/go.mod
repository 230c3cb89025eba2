module github.com/pulumi-storage-user/tools/ftp-server

go 1.25

require (
	github.com/fclairamb/ftpserverlib v0.29.0
	github.com/spf13/afero v1.15.0
)

require (
	golang.org/x/sys v0.40.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
