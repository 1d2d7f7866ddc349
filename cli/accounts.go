package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"

	"launchdir/app"
	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/db"
	"launchdir/server"
)

// newTable starts aligned CLI output under a tab-separated header; call
// Flush when the rows are written.
func newTable(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw
}

// openApp opens the database for a CLI command (no demo fill, no server);
// the caller closes a.DB.
func openApp(path string) (*app.App, error) {
	ctx := context.Background()
	d, err := db.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("database %s: %v", path, err)
	}
	a, err := app.New(d, kernel.Config{BaseURL: "http://localhost"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		d.Close()
		return nil, err
	}
	return a, nil
}

func apikeyCmd(args []string, stdout io.Writer) error {
	sub, rest := subcommand(args)
	fs := flag.NewFlagSet("apikey", flag.ContinueOnError)
	email := fs.String("email", "", "user email")
	scopes := fs.String("scopes", "account:read", "comma separated scopes")
	name := fs.String("name", "", "key name")
	id := fs.Int64("id", 0, "key id (revoke)")
	path := fs.String("db", "./launchdir.db", "SQLite database file")
	if err := server.ParseFlags(fs, rest); err != nil {
		return err
	}
	if sub == "" {
		return errors.New("apikey needs a subcommand: create, list or revoke")
	}
	a, err := openApp(*path)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	ctx := context.Background()
	switch sub {
	case "create":
		sc, err := people.ParseScopes(*scopes)
		if err != nil {
			return err
		}
		secret, _, err := a.People.CreateAPIKey(ctx, *email, *name, sc)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, secret)
	case "list":
		keys, err := a.People.ListAPIKeys(ctx, strings.ToLower(*email))
		if err != nil {
			return err
		}
		tw := newTable(stdout, "ID\tEMAIL\tPREFIX\tSCOPES\tCREATED\tLAST USED\tREVOKED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Email, k.Prefix, strings.Join(k.Scopes, ","), k.CreatedAt, k.LastUsedAt, k.RevokedAt)
		}
		tw.Flush()
	case "revoke":
		if *id < 1 {
			return errors.New("apikey revoke needs -id")
		}
		if err := a.People.RevokeAPIKey(ctx, *id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked key %d\n", *id)
	default:
		return fmt.Errorf("unknown apikey subcommand %q", sub)
	}
	return nil
}

func userCmd(args []string, stdout io.Writer) error {
	sub, rest := subcommand(args)
	fs := flag.NewFlagSet("user", flag.ContinueOnError)
	email := fs.String("email", "", "user email")
	name := fs.String("name", "", "display name")
	pwStdin := fs.Bool("password-stdin", false, "read a sign-in password from the first line of stdin")
	admin := fs.Bool("admin", false, "create: make the account an admin (the site team)")
	path := fs.String("db", "./launchdir.db", "SQLite database file")
	if err := server.ParseFlags(fs, rest); err != nil {
		return err
	}
	if sub == "" {
		return errors.New("user needs a subcommand: create, password, promote, demote or list")
	}
	a, err := openApp(*path)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	ctx := context.Background()
	switch sub {
	case "create":
		// Idempotent: an email that already has an account (from the site or
		// `apikey create`) gets the name, password and admin flag given.
		password := ""
		if *pwStdin {
			if password, err = readPassword(); err != nil {
				return err
			}
		}
		res, err := a.People.UpsertAccount(ctx, *email, *name, password, *admin)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, res.Summary())
	case "password":
		if !*pwStdin {
			return errors.New("user password needs -password-stdin (the password is read from the first line of stdin)")
		}
		password, err := readPassword()
		if err != nil {
			return err
		}
		u, err := a.People.SetPassword(ctx, *email, password)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "user %d %s: password set (its site sessions were signed out)\n", u.ID, u.Email)
	case "promote", "demote":
		// The site team: admins open /admin on the site (signed in there).
		u, err := a.Admin.SetAdmin(ctx, *email, sub == "promote")
		if err != nil {
			return err
		}
		if sub == "promote" {
			fmt.Fprintf(stdout, "user %d %s is an admin\n", u.ID, u.Email)
		} else {
			fmt.Fprintf(stdout, "user %d %s is no longer an admin\n", u.ID, u.Email)
		}
	case "list":
		users, err := a.People.ListUsers(ctx)
		if err != nil {
			return err
		}
		tw := newTable(stdout, "ID\tEMAIL\tNAME\tCREATED")
		for _, u := range users {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", u.ID, u.Email, u.Name, u.CreatedAt)
		}
		tw.Flush()
	default:
		return fmt.Errorf("unknown user subcommand %q", sub)
	}
	return nil
}

// readPassword reads the first line of stdin.
func readPassword() (string, error) {
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if line = strings.TrimRight(line, "\r\n"); line == "" {
		return "", errors.New("no password on stdin")
	}
	return line, nil
}
