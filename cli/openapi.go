package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/routes"
	"launchdir/server"
)

// openapiCmd prints the OpenAPI document (CI lints it and generates
// TypeScript types from it). It needs no database of the caller's: the
// document comes from the operations table alone.
func openapiCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	base := fs.String("base-url", "http://127.0.0.1:8080", "public origin written into the document")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "launchdir-openapi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	d, err := db.Open(context.Background(), filepath.Join(tmp, "doc.db"))
	if err != nil {
		return err
	}
	defer d.Close()
	a, err := app.New(d, kernel.Config{BaseURL: *base, SiteName: "launchdir"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	doc, err := routes.OpenAPI(context.Background(), a)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", doc)
	return err
}
