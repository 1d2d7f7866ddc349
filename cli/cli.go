// Package cli is the launchdir command line: serve (the default) and the
// maintenance commands (seed, backup, restore, apikey, user, price, promo,
// order, openapi, version). Each command opens the database itself and
// calls the business layer, never SQL of its own.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"launchdir/app/kernel"
	"launchdir/server"
)

// commands is every subcommand but serve, help and version.
var commands = map[string]func(args []string, stdout io.Writer) error{
	"seed": seedCmd, "backup": backupCmd, "restore": restoreCmd,
	"apikey": apikeyCmd, "user": userCmd, "openapi": openapiCmd,
	"price": priceCmd, "promo": promoCmd, "order": orderCmd,
	"healthcheck": healthcheckCmd,
}

// Run dispatches subcommands; no subcommand (or "serve") serves. -h,
// -help or --help anywhere a command parses flags prints that command's
// synopsis and flags to stdout and returns nil (exit status 0).
func Run(args []string, stdout, stderr io.Writer) error {
	cmd, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	var err error
	switch {
	case len(args) > 0 && (args[0] == "-version" || args[0] == "--version"):
		cmd, err = "version", versionCmd(nil, stdout)
	case len(args) == 1 && isHelp(args[0]):
		return printHelp(stdout)
	case cmd == "help":
		if len(rest) > 0 && rest[0] != "serve" {
			return Run([]string{rest[0], "-h"}, stdout, stderr)
		}
		return printHelp(stdout)
	case cmd == "serve":
		err = server.Serve(rest, stderr)
	case cmd == "version":
		err = versionCmd(rest, stdout)
	case commands[cmd] != nil:
		err = commands[cmd](rest, stdout)
	default:
		return fmt.Errorf("unknown command %q (commands: serve, seed, backup, restore, apikey, user, price, promo, order, openapi, healthcheck, version, help)", cmd)
	}
	var h *server.HelpError
	if errors.As(err, &h) {
		_, err = fmt.Fprintf(stdout, "%s\nFlags (each also settable as the environment variable shown):\n%s", synopsis(cmd), h.Flags)
	}
	return err
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// subcommand splits "create -email x" into the subcommand and its flags;
// a leading flag (e.g. -h) means no subcommand was given.
func subcommand(args []string) (sub string, rest []string) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", args
	}
	return args[0], args[1:]
}

// printHelp is `launchdir help` and `launchdir -h`: every command, then
// the serve flags (serve is the default command).
func printHelp(stdout io.Writer) error {
	_, err := fmt.Fprintf(stdout, "%s\nlaunchdir help COMMAND (or launchdir COMMAND -h) shows a command's flags.\n\nServe flags:\n%s", usage, server.ServeFlagHelp())
	return err
}

// synopsis is the usage lines of one command.
func synopsis(cmd string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(usage, "\n") {
		if strings.HasPrefix(l, "launchdir "+cmd+" ") || (cmd == "serve" && strings.HasPrefix(l, "launchdir [serve]")) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// versionCmd prints the build's identity (kernel.Build): the release tag
// or the API version, the commit, its date and the Go toolchain.
func versionCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	b := kernel.Build()
	commit := b.Commit
	if commit == "" {
		commit = "unknown (built outside a git checkout)"
	} else if b.Modified {
		commit += " (with uncommitted changes)"
	}
	built := b.Date
	if built == "" {
		built = "unknown"
	}
	_, err := fmt.Fprintf(stdout, "launchdir %s\ncommit:   %s\nbuilt:    %s\ngo:       %s\nplatform: %s\n", b.Version, commit, built, b.Go, b.Platform)
	return err
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
` + orderUsage + backupUsage + healthcheckUsage + `launchdir version (or -version)                  version, commit, build date, Go version
launchdir help [COMMAND]                         this text, or one command's flags
Every flag can also be set as LAUNCHDIR_<NAME> (e.g. LAUNCHDIR_DB, LAUNCHDIR_BASE_URL).
`
