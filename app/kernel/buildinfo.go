package kernel

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Set at link time by release builds (.goreleaser.yaml):
//
//	-ldflags "-X launchdir/app/kernel.version=1.2.3 -X launchdir/app/kernel.commit=… -X launchdir/app/kernel.date=…"
//
// Left empty, they come from the build info Go stamps into every binary
// built from a checkout (the module version is the tag when the commit is
// tagged; vcs.revision and vcs.time otherwise).
var version, commit, date string

// baseVersion is what a build that carries no release tag reports: the
// API contract this source implements (OpenAPI info.version, MCP server
// version, /healthz). A tagged build reports the tag instead.
const baseVersion = "1.0.0"

// Version is the binary's version, also the OpenAPI interface version.
var Version = Build().Version

// BuildInfo is what `launchdir version` prints.
type BuildInfo struct {
	Version  string // 1.2.3 (no leading v)
	Commit   string // full revision, "" if unknown
	Date     string // commit time (RFC 3339) or the release build's date
	Modified bool   // built from a checkout with uncommitted changes
	Go       string // toolchain, e.g. go1.26.8
	Platform string // GOOS/GOARCH
}

// Build resolves the build's identity: link-time values first, then the
// VCS stamp in debug.ReadBuildInfo, then baseVersion.
func Build() BuildInfo {
	b := BuildInfo{Version: baseVersion, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := tagVersion(bi.Main.Version); v != "" {
			b.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if v := strings.TrimPrefix(version, "v"); v != "" {
		b.Version = v
	}
	if commit != "" {
		b.Commit = commit
	}
	if date != "" {
		b.Date = date
	}
	return b
}

// tagVersion keeps a module version only when it is a release tag:
// "(devel)", pseudo-versions (v0.0.0-20261126…-abcdef) and +dirty builds
// are not releases, so they fall back to baseVersion with the commit shown.
func tagVersion(v string) string {
	if v == "" || v == "(devel)" || strings.Contains(v, "+") || isPseudo(v) {
		return ""
	}
	return strings.TrimPrefix(v, "v")
}

// isPseudo reports a Go pseudo-version: its last dash-separated part is a
// 12-hex-digit revision preceded by a 14-digit timestamp.
func isPseudo(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	rev, ts := parts[len(parts)-1], parts[len(parts)-2]
	if i := strings.LastIndex(ts, "."); i >= 0 {
		ts = ts[i+1:]
	}
	return len(rev) == 12 && len(ts) == 14 && strings.Trim(rev, "0123456789abcdef") == "" && strings.Trim(ts, "0123456789") == ""
}
