package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// A read replica's file is written by the follower (replica.Follower), which
// copies the primary's pages into it. The server only reads it, so it is
// opened without migrations, without switching it to WAL (the follower keeps
// it in rollback-journal mode, where a reader notices a changed file by its
// header's change counter) and with every connection read-only. W is a
// read-only connection as well: a write that slipped past the read-only gate
// fails with SQLITE_READONLY instead of touching the copy.

// replicaDSN is a read-only connection string for a follower's file.
func replicaDSN(path string, cacheKB int) string {
	q := url.Values{}
	q.Set("mode", "ro")
	// The follower holds an exclusive lock while it applies a batch of
	// transactions (milliseconds); readers wait for it rather than fail.
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cacheKB))
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Add("_pragma", "query_only(ON)")
	return "file:" + path + "?" + q.Encode()
}

// OpenReplica opens a follower's copy of the primary's database for reading
// (o as for OpenWith; the writer's cache is not used). The schema must be
// one this binary knows: a replica never migrates.
func OpenReplica(ctx context.Context, path string, o Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("database path is empty")
	}
	if o.ReadCacheKB <= 0 {
		o.ReadCacheKB = DefaultReadCacheKB
	}
	if o.ReadConns <= 0 {
		o.ReadConns = DefaultReadConns()
	}
	open := func(n int) (*sql.DB, error) {
		p, err := openPool(replicaDSN(path, o.ReadCacheKB), nil)
		if err != nil {
			return nil, err
		}
		p.SetMaxOpenConns(n)
		p.SetMaxIdleConns(n)
		return p, nil
	}
	w, err := open(1)
	if err != nil {
		return nil, err
	}
	d := &DB{W: w, Path: path}
	if err := d.CheckReplicaSchema(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := d.loadSiteShape(ctx, d.W); err != nil {
		w.Close()
		return nil, err
	}
	if d.R, err = d.openReadPool(replicaDSN(path, o.ReadCacheKB)); err != nil {
		w.Close()
		return nil, err
	}
	d.R.SetMaxOpenConns(o.ReadConns)
	d.R.SetMaxIdleConns(o.ReadConns)
	d.replica = true
	d.profiles = true // the primary's ready-made profiles, as of this copy
	return d, nil
}

// CheckReplicaSchema refuses a copy whose schema differs from this binary's:
// a replica must run the same launchdir version as its primary.
func (d *DB) CheckReplicaSchema(ctx context.Context) error {
	applied, err := d.appliedVersions(ctx)
	if err != nil {
		return fmt.Errorf("replica database %s is not usable: %w", d.Path, err)
	}
	newest := 0
	for v := range applied {
		newest = max(newest, v)
	}
	if newest != SchemaVersion() {
		return fmt.Errorf("the primary's schema version is %d, this binary's %d: run the same launchdir version on the primary and its replicas", newest, SchemaVersion())
	}
	return nil
}

// IsReplica reports whether this is a read replica's copy (read-only).
func (d *DB) IsReplica() bool { return d.replica }

// refuseReplicaCopy keeps read-write opens (the server, every CLI command)
// off a read replica's copy: a write there would be invisible to the
// replica (SQLite would switch the copy to WAL) and overwritten by the
// follower. The follower's position file marks a copy.
func refuseReplicaCopy(path string) error {
	if _, err := os.Stat(path + "-txid"); err == nil {
		return fmt.Errorf("%s is a read replica's copy (%s-txid beside it): serve it with -replica-of; to promote it to a primary, stop the replica and delete %s-txid first", path, path, path)
	}
	return nil
}
