module vbench

go 1.23.0

require (
	github.com/google/pprof v0.0.0-20250630185457-6e76a2b096b5
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
