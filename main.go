// Command launchdir is a startup listing directory in one binary: REST API,
// MCP server, crawler and checkout on one SQLite file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"launchdir/routes"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "launchdir:", oneLine(err))
		os.Exit(1)
	}
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// run dispatches subcommands; no subcommand (or "serve") serves.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest := args[0], args[1:]
		switch cmd {
		case "serve":
			return serve(rest, stderr)
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
			fmt.Fprintln(stdout, "launchdir", version)
			return nil
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
			return nil
		}
		return fmt.Errorf("unknown command %q (commands: serve, seed, backup, restore, apikey, user, price, promo, order, openapi, version)", cmd)
	}
	return serve(args, stderr)
}

const version = "1.0.0"

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

// envDefaults applies LAUNCHDIR_<NAME> environment variables to flags not set
// on the command line (flags win over the environment).
func envDefaults(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		key := "LAUNCHDIR_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(key); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", key, v, e)
			}
		}
	})
	return err
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("bad flags: %v (see launchdir help)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return envDefaults(fs)
}

func serve(args []string, stderr io.Writer) error {
	cfg := defaultServeConfig()
	fs := cfg.flags()
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cfg.check(); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	svc, err := start(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer svc.close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %v", cfg.Addr, err)
	}
	// ReadTimeout bounds slow uploads (bodies are at most 1 MiB); writes are
	// not bounded because a draft submitted over MCP with progress may wait
	// up to a minute for the crawl.
	srv := &http.Server{Handler: svc.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: routes.MaxHeaderBytes}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(routes.ProblemListener(ln)) }()
	log.Info("serving", "addr", ln.Addr().String(), "api", svc.app.APIURL(), "mcp", svc.app.MCPURL(), "db", cfg.DB)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
