// Command ibdoctor keeps the RDMA network of GPU training clusters healthy:
// InfiniBand and RoCE ports on every node, the fabric between them, and the
// NCCL jobs on top. See README.md.
package main

import (
	"os"

	"github.com/ibdoctor/ibdoctor/internal/cli"
)

// version is set with -ldflags "-X main.version=…" by the Makefile.
var version = "dev"

func main() {
	os.Exit(cli.Main(version, os.Args[1:]))
}
