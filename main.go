// Command launchdir is a startup listing directory in one binary: REST API,
// MCP server, OAuth server and website over one business layer (app/) and
// one SQLite file. The command line is in package cli, the server's wiring
// in package server.
package main

import (
	"fmt"
	"os"
	"strings"

	"launchdir/cli"
)

func main() {
	if err := cli.Run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "launchdir:", strings.ReplaceAll(err.Error(), "\n", "; "))
		os.Exit(1)
	}
}
