package replica

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benbjohnson/litestream"
	_ "modernc.org/sqlite" // driver "sqlite"
)

// BackupInfo describes a verified copy.
type BackupInfo struct {
	Path          string
	Bytes         int64
	SchemaVersion int
}

// Backup writes a consistent copy of the database at src to dst while
// other processes keep writing: VACUUM INTO reads one snapshot (a read
// transaction under WAL) and writes a compact file. The copy is written
// beside dst, checked with PRAGMA integrity_check, and only then renamed to
// dst, so dst is either absent or a verified backup.
func Backup(ctx context.Context, src, dst string) (*BackupInfo, error) {
	if st, err := os.Stat(src); err != nil || st.Size() == 0 {
		return nil, fmt.Errorf("database %s does not exist or is empty", src)
	}
	if _, err := os.Stat(dst); err == nil {
		return nil, fmt.Errorf("%s exists; choose a new name", dst)
	}
	tmp, err := tempBeside(dst)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	db, err := sql.Open("sqlite", "file:"+src+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	info, err := Verify(ctx, tmp)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return nil, err
	}
	info.Path = dst
	return info, nil
}

// Verify runs PRAGMA integrity_check on a database file (read-only).
func Verify(ctx context.Context, path string) (*BackupInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("%s is not a usable SQLite database: %w", path, err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	rows.Close()
	if len(problems) > 0 {
		return nil, fmt.Errorf("integrity_check of %s failed: %s", path, strings.Join(problems[:min(3, len(problems))], "; "))
	}
	info := &BackupInfo{Path: path, Bytes: st.Size()}
	// A launchdir database records its schema version; other files are refused.
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version),0) FROM schema_migrations`).Scan(&info.SchemaVersion); err != nil {
		return nil, fmt.Errorf("%s is not a launchdir database: %w", path, err)
	}
	return info, nil
}

func tempBeside(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	// VACUUM INTO wants a missing or empty file; an empty one is fine.
	return name, nil
}

// IsReplicaURL reports whether from names a replica rather than a file.
func IsReplicaURL(from string) bool {
	u, err := url.Parse(from)
	return err == nil && (u.Scheme == "file" || u.Scheme == "s3")
}

// Live reports signs that a server has the database open (or crashed with
// it open): its -wal or -shm file. A cleanly closed database has neither.
func Live(path string) bool {
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + s); err == nil {
			return true
		}
	}
	return false
}

// RestoreOptions say where a database comes back from.
type RestoreOptions struct {
	From  string    // a backup file, or a replica URL (file:// or s3://)
	At    time.Time // replica only: the state as of this time (zero: latest)
	Force bool      // replace an existing database
}

// RestoreTo puts a backup or a replica's database at path. It refuses an
// existing database unless Force, and a database that looks open by a
// running server (-wal/-shm present) unless Force too; the new file is
// verified before it replaces anything, and stale WAL, shared-memory and
// Litestream state of the old file are removed with it.
func RestoreTo(ctx context.Context, path string, o RestoreOptions) (*BackupInfo, error) {
	if _, err := os.Stat(path); err == nil && !o.Force {
		return nil, fmt.Errorf("%s exists; stop the server and pass -force to replace it", path)
	}
	if Live(path) && !o.Force {
		return nil, fmt.Errorf("%s looks in use (a -wal or -shm file is present); stop the server and pass -force", path)
	}
	tmp, err := tempBeside(path)
	if err != nil {
		return nil, err
	}
	os.Remove(tmp) // both restore paths want to create it
	defer os.Remove(tmp)
	if IsReplicaURL(o.From) {
		if err := Restore(ctx, o.From, tmp, o.At); err != nil {
			return nil, err
		}
	} else {
		if !o.At.IsZero() {
			return nil, errors.New("-at needs a replica URL (file:// or s3://), not a backup file")
		}
		if _, err := Verify(ctx, o.From); err != nil {
			return nil, err
		}
		if err := copyFile(o.From, tmp); err != nil {
			return nil, err
		}
	}
	info, err := Verify(ctx, tmp)
	if err != nil {
		return nil, err
	}
	for _, s := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + s); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	dir, file := filepath.Split(path)
	if err := os.RemoveAll(filepath.Join(dir, "."+file+litestream.MetaDirSuffix)); err != nil {
		return nil, err
	}
	os.Remove(tmp + "-txid") // written by Litestream's restore
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	info.Path = path
	return info, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
