package kernel

import "testing"

func TestTagVersion(t *testing.T) {
	for v, want := range map[string]string{
		"v1.2.3": "1.2.3", "v1.2.3-rc.1": "1.2.3-rc.1", "(devel)": "", "": "",
		"v0.0.0-20261126081500-0123456789ab":        "",
		"v1.2.4-0.20261126081500-0123456789ab":      "",
		"v1.2.3-rc.1.0.20261126081500-0123456789ab": "",
		"v1.2.3+dirty": "",
	} {
		if got := tagVersion(v); got != want {
			t.Errorf("tagVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestBuildPrefersLinkTimeValues(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	if b := Build(); b.Version != baseVersion || b.Go == "" || b.Platform == "" {
		t.Fatalf("default build: %+v", b)
	}
	version, commit, date = "v2.0.1", "abc", "2026-11-26T08:00:00Z"
	if b := Build(); b.Version != "2.0.1" || b.Commit != "abc" || b.Date != date {
		t.Fatalf("link-time build: %+v", b)
	}
}
