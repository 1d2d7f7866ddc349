package cli

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"launchdir/db"
	"launchdir/demo"
	"launchdir/server"
)

func seedCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	n := fs.Int("listings", 1000, "number of listings")
	path := fs.String("db", "./launchdir.db", "SQLite database file")
	seed := fs.Int64("seed", 1, "generator seed")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the seed to this file (go tool pprof)")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	if *n < 1 || *n > 10_000_000 {
		return errors.New("bad -listings: must be 1..10000000")
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	phases := demo.NewPhases()
	if err := seedFile(demo.WithPhases(context.Background(), phases), *path, *n, *seed); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seeded %d listings into %s in %s (%s)\n", *n, *path, time.Since(start).Round(time.Millisecond), phases)
	return nil
}

// seedFile seeds a copy of the (empty) database at path, path.seeding, and
// renames it over path when it is complete. A seed that is killed half-way
// thus never touches path: the server's next start opens the empty
// database as it was, in milliseconds, instead of first rolling back
// gigabytes of an unfinished seed (truncating them costs about 0.4 s per
// GB), and the next seed deletes the leftover. No server may have path
// open: the new file replaces it. Rows already in path
// (accounts made with `launchdir apikey create`) are copied into the new
// file first; demo.Seed then moves them aside as it always has.
func seedFile(ctx context.Context, path string, n int, seed int64) error {
	target, err := db.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("database %s: %v", path, err)
	}
	var rows int
	err = target.W.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM listings) + (SELECT count(*) FROM categories)`).Scan(&rows)
	target.Close()
	if err != nil {
		return err
	}
	if rows > 0 {
		return fmt.Errorf("demo: database is not empty (%d listings and categories)", rows)
	}
	tmp := path + ".seeding"
	if err := removeDB(tmp); err != nil {
		return err
	}
	if err := buildSeed(ctx, tmp, path, n, seed); err != nil {
		removeDB(tmp)
		return err
	}
	// path was closed cleanly (no WAL left); its -wal and -shm must not
	// outlive it, or SQLite could apply them to the new file.
	for _, f := range []string{path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Rename(tmp, path)
}

// buildSeed makes tmp: the schema, the rows of from, the seed, statistics.
func buildSeed(ctx context.Context, tmp, from string, n int, seed int64) error {
	d, err := db.Open(ctx, tmp)
	if err != nil {
		return fmt.Errorf("database %s: %v", tmp, err)
	}
	if err := copyRows(ctx, d, from); err != nil {
		d.Close()
		return fmt.Errorf("copying %s: %w", from, err)
	}
	phases := demo.PhasesOf(ctx)
	phases.Done("schema")
	if err := demo.Seed(ctx, d, n, seed, time.Now()); err != nil {
		d.Close()
		return err
	}
	// Ready-made profiles (db/profiles.go), built in parallel: nothing else
	// has the new file open.
	if err := d.BuildProfilesOffline(ctx); err != nil {
		d.Close()
		return err
	}
	phases.Done("profiles")
	if err := d.Analyze(ctx); err != nil {
		d.Close()
		return err
	}
	phases.Done("statistics")
	err = d.Close()
	phases.Done("close")
	return err
}

// copyRows copies every row of the database file from into d (same
// schema: both were migrated by this binary), in one transaction. Rows d
// already has (the product catalogue migrations insert) are kept;
// full-text tables are skipped (nothing is indexed in an empty directory).
func copyRows(ctx context.Context, d *db.DB, from string) error {
	// ATTACH and the foreign-key switch cannot run inside a transaction;
	// the writer is one connection, so the Tx below runs where they apply.
	// Foreign keys are off for the copy: the rows were consistent in from,
	// but are copied table by table in name order.
	if _, err := d.W.ExecContext(ctx, `PRAGMA foreign_keys=OFF; ATTACH DATABASE ? AS src`, "file:"+from+"?mode=ro"); err != nil {
		return err
	}
	defer d.W.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE src; PRAGMA foreign_keys=ON`)
	return d.Tx(ctx, func(tx *sql.Tx) error {
		tables, err := db.Column[string](ctx, tx, `SELECT name FROM main.sqlite_master t WHERE type = 'table'
			AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name != 'schema_migrations'
			AND sql NOT LIKE 'CREATE VIRTUAL%'
			AND NOT EXISTS (SELECT 1 FROM main.sqlite_master v WHERE v.sql LIKE 'CREATE VIRTUAL%' AND t.name LIKE v.name || '\_%' ESCAPE '\')
			ORDER BY name`)
		if err != nil {
			return err
		}
		for _, t := range tables {
			q := `INSERT OR IGNORE INTO main."` + t + `" SELECT * FROM src."` + t + `"`
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
		}
		return nil
	})
}

// removeDB deletes a database file and its journals, if any.
func removeDB(path string) error {
	for _, f := range []string{path, path + "-journal", path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
