package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"launchdir/replica"
)

// Continuous replication (Litestream as a library; see README "Backups and
// replication"): the serve flags, the restore of a replaced VM at start,
// and the replicator's life with the server.

func replicationFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Replicate, "replicate", c.Replicate, "replicate the database continuously to file:///dir or s3://bucket/prefix?endpoint=…&region=… (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)")
	fs.DurationVar(&c.ReplicaSync, "replicate-sync-interval", time.Second, "how often changes are shipped to the replica (at most this much is lost with the disk)")
	fs.DurationVar(&c.SnapInterval, "snapshot-interval", 24*time.Hour, "how often a full snapshot is written to the replica")
	fs.DurationVar(&c.SnapRetention, "snapshot-retention", 24*time.Hour, "how long snapshots (and point-in-time restore) are kept")
	fs.BoolVar(&c.RestoreMissing, "restore-if-missing", c.RestoreMissing, "when the database file is missing, restore it from -replicate before starting")
}

func (c *Config) checkReplication() error {
	if c.Replicate == "" {
		if c.RestoreMissing {
			return errors.New("-restore-if-missing needs -replicate URL")
		}
		return nil
	}
	if err := replica.CheckURL(c.Replicate); err != nil {
		return fmt.Errorf("bad -replicate: %v", err)
	}
	if c.ReplicaSync <= 0 || c.SnapInterval <= 0 || c.SnapRetention <= 0 {
		return errors.New("bad -replicate-sync-interval/-snapshot-interval/-snapshot-retention: must be positive")
	}
	return nil
}

// restoreIfMissing brings a replaced VM's database back from the replica.
// An empty replica (first start) is not an error: the server starts fresh.
func restoreIfMissing(ctx context.Context, c *Config, log *slog.Logger) error {
	if !c.RestoreMissing {
		return nil
	}
	if st, err := os.Stat(c.DB); err == nil && st.Size() > 0 {
		return nil
	}
	info, err := replica.RestoreTo(ctx, c.DB, replica.RestoreOptions{From: c.Replicate, Force: true})
	switch {
	case replica.IsNoBackup(err):
		log.Info("replica holds no backup yet; starting with a new database", "replica", replica.Redact(c.Replicate))
		return nil
	case err != nil:
		return fmt.Errorf("restore from replica: %v", err)
	}
	log.Info("restored the missing database from the replica", "replica", replica.Redact(c.Replicate), "bytes", info.Bytes)
	return nil
}

func startReplication(ctx context.Context, c *Config, log *slog.Logger) (*replica.Replicator, error) {
	if c.Replicate == "" {
		return nil, nil
	}
	return replica.Start(ctx, c.DB, replica.Options{URL: c.Replicate, SyncInterval: c.ReplicaSync,
		SnapshotInterval: c.SnapInterval, SnapshotRetention: c.SnapRetention, Log: log})
}

// stopReplication ships the last changes before the database closes.
func stopReplication(r *replica.Replicator, log *slog.Logger) {
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		log.Error("stopping replication", "err", err)
	}
}

func replicationStatus(r *replica.Replicator) any {
	if r == nil {
		return nil
	}
	return r.Status()
}
