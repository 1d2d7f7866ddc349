package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"launchdir/replica"
	"launchdir/server"
)

const backupUsage = `launchdir backup -db FILE -to PATH      consistent online copy (VACUUM INTO), integrity-checked
launchdir restore -db FILE -from BACKUP|URL [-at RFC3339] [-force]   put a backup or replica back
`

// backupCmd copies the database while the server keeps serving.
func backupCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	path := fs.String("db", "./launchdir.db", "database file")
	to := fs.String("to", "", "backup file to write (must not exist)")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return errors.New("backup needs -to PATH")
	}
	info, err := replica.Backup(context.Background(), *path, *to)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup %s: %d bytes, integrity_check ok, schema version %d\n", info.Path, info.Bytes, info.SchemaVersion)
	return nil
}

// restoreCmd puts a backup file or a replica's database (latest or as of
// -at) at -db; it refuses to replace an existing database without -force.
func restoreCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	path := fs.String("db", "./launchdir.db", "database file to write")
	from := fs.String("from", "", "backup file, or replica URL (file:///dir, s3://bucket/prefix?endpoint=…&region=…)")
	at := fs.String("at", "", "replica only: restore the state as of this RFC 3339 time")
	force := fs.Bool("force", false, "replace an existing database (stop the server first)")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	if *from == "" {
		return errors.New("restore needs -from BACKUP_FILE or -from REPLICA_URL")
	}
	o := replica.RestoreOptions{From: *from, Force: *force}
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			return fmt.Errorf("bad -at %q: want RFC 3339 like 2026-11-23T10:00:00Z", *at)
		}
		o.At = t
	}
	if replica.IsReplicaURL(*from) {
		if err := replica.CheckURL(*from); err != nil {
			return fmt.Errorf("bad -from: %v", err)
		}
	}
	info, err := replica.RestoreTo(context.Background(), *path, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s: %d bytes, integrity_check ok, schema version %d\n", info.Path, replica.Redact(*from), info.Bytes, info.SchemaVersion)
	return nil
}
