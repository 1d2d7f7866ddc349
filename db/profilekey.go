package db

import (
	"database/sql/driver"
	"fmt"
	"hash/fnv"

	"modernc.org/sqlite"
)

// A ready-made profile is found by its slug's key (migration 0034): the
// row id of listing_profiles is a hash of the slug, so a get_listing read
// descends one b-tree instead of three (the slug index, the table, and
// the listings index for the vote count). Every commit empties every
// reader's page cache, and each page read back is a system call: under a
// writer that was 11 page reads a get, now 5.
//
// Two slugs may share a key. The row keeps its slug and a read compares
// it, so a listing whose key is taken by another's row is simply not
// found and is assembled fresh (correct, only slower); storing a profile
// replaces a row of another listing with the same key, which then reads
// fresh in turn. At 1M listings the chance of any shared key is about
// one in 10^7.

// slugKey is the key of a slug: FNV-1a, 64 bits, the top bit cleared so
// keys are positive. It is stored in the file: never change it.
var slugKey = func(slug string) int64 {
	h := fnv.New64a()
	h.Write([]byte(slug))
	return int64(h.Sum64() &^ (1 << 63))
}

// ProfileKeySQL is the SQL function giving slugKey, for migration 0034.
const ProfileKeySQL = "launchdir_slug_key"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(ProfileKeySQL, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return slugKey(v), nil
		case []byte:
			return slugKey(string(v)), nil
		default:
			return nil, fmt.Errorf("%s: want a text slug, got %T", ProfileKeySQL, v)
		}
	})
}
