// Package cli is the launchdir command line: serve (the default) and the
// maintenance commands (seed, backup, restore, apikey, user, price, promo,
// order, openapi, version). Each command opens the database itself and
// calls the business layer, never SQL of its own.
package cli

import (
	"fmt"
	"io"
	"launchdir/app/kernel"
	"launchdir/server"
	"strings"
)

// Run dispatches subcommands; no subcommand (or "serve") serves.
func Run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest := args[0], args[1:]
		switch cmd {
		case "serve":
			return server.Serve(rest, stderr)
		case "seed":
			return seedCmd(rest, stdout)
		case "backup":
			return backupCmd(rest, stdout)
		case "restore":
			return restoreCmd(rest, stdout)
		case "apikey":
			return apikeyCmd(rest, stdout)
		case "user":
			return userCmd(rest, stdout)
		case "price", "promo", "order":
			if f := orderCommands[cmd]; f != nil {
				return f(rest, stdout)
			}
		case "openapi":
			return openapiCmd(rest, stdout)
		case "version":
			fmt.Fprintln(stdout, "launchdir", kernel.Version)
			return nil
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
			return nil
		}
		return fmt.Errorf("unknown command %q (commands: serve, seed, backup, restore, apikey, user, price, promo, order, openapi, version)", cmd)
	}
	return server.Serve(args, stderr)
}

const usage = `launchdir [serve] [flags]     serve the directory (default)
launchdir seed -listings N -db PATH
launchdir apikey create -email E -scopes account:read,listings:write [-name N] -db PATH
launchdir apikey list [-email E] -db PATH
launchdir apikey revoke -id ID -db PATH
launchdir user create -email E [-name N] [-password-stdin] [-admin] -db PATH   (idempotent)
launchdir user password -email E -password-stdin -db PATH
launchdir user promote|demote -email E -db PATH
launchdir user list -db PATH
launchdir openapi [-base-url URL]                 print the OpenAPI document
` + orderUsage + backupUsage + `Every flag can also be set as LAUNCHDIR_<NAME> (e.g. LAUNCHDIR_DB, LAUNCHDIR_BASE_URL).
`
