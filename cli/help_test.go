package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"launchdir/server"
)

// Every command answers -h and --help on stdout with its synopsis and each
// of its flags beside the LAUNCHDIR_* variable that also sets it, and
// returns nil (exit status 0).
func TestHelpOnEveryCommand(t *testing.T) {
	cmds := []string{"serve", "version"}
	for c := range commands {
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		for _, h := range []string{"-h", "--help", "-help"} {
			out, err := runCmd(t, c, h)
			if err != nil {
				t.Fatalf("%s %s: %v", c, h, err)
			}
			if !strings.HasPrefix(out, "launchdir ") || !strings.Contains(out, "Flags") {
				t.Fatalf("%s %s printed %q", c, h, out)
			}
			if c != "version" && !strings.Contains(out, "[LAUNCHDIR_") {
				t.Fatalf("%s %s: no LAUNCHDIR_ names in %q", c, h, out)
			}
		}
	}
	// Subcommands' help works after the subcommand too.
	for _, args := range [][]string{{"apikey", "create", "-h"}, {"user", "list", "--help"}, {"price", "set", "-h"}, {"order", "refund", "-h"}, {"promo", "create", "-h"}} {
		if out, err := runCmd(t, args...); err != nil || !strings.Contains(out, "[LAUNCHDIR_DB]") {
			t.Fatalf("%v: %v %q", args, err, out)
		}
	}
	if out, _ := runCmd(t, "seed", "-h"); !strings.Contains(out, "-listings int   [LAUNCHDIR_LISTINGS]") || !strings.Contains(out, "(default 1000)") {
		t.Fatalf("seed -h: %q", out)
	}
	if out, _ := runCmd(t, "help", "backup"); !strings.Contains(out, "[LAUNCHDIR_TO]") {
		t.Fatalf("help backup: %q", out)
	}
}

// launchdir help, -h and --help list every command and every serve flag.
func TestHelpListsServeFlags(t *testing.T) {
	want := strings.Count(server.ServeFlagHelp(), "\n  -") + 1 // the first has no newline before it
	if want < 30 {
		t.Fatalf("only %d serve flags", want)
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "serve"}} {
		out, err := runCmd(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"launchdir seed", "launchdir backup", "launchdir version", "[LAUNCHDIR_ADDR]", "[LAUNCHDIR_MAX_INFLIGHT_WRITES]", "[LAUNCHDIR_REPLICATE]"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q", args, want)
			}
		}
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  -") {
				n++
			}
		}
		if n != want {
			t.Errorf("%v lists %d serve flags", args, n)
		}
	}
	if _, err := runCmd(t, "help", "nonsense"); err == nil {
		t.Fatal("help for an unknown command")
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		out, err := runCmd(t, args...)
		if err != nil || !strings.HasPrefix(out, "launchdir 1.0.0\n") || !strings.Contains(out, "go:       "+runtime.Version()) ||
			!strings.Contains(out, "platform: "+runtime.GOOS+"/"+runtime.GOARCH) || !strings.Contains(out, "commit:") || !strings.Contains(out, "built:") {
			t.Fatalf("%v: %v %q", args, err, out)
		}
	}
}

// The built binary: exit status 0 for help and version, the release
// values set at link time (as .goreleaser.yaml does) win, and bad flags
// still exit 1.
func TestBinaryHelpAndVersionExitZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "launchdir")
	ld := "-X launchdir/app/kernel.version=v9.8.7 -X launchdir/app/kernel.commit=0123abc -X launchdir/app/kernel.date=2026-11-26T08:00:00Z"
	build := exec.Command("go", "build", "-trimpath", "-ldflags", ld, "-o", bin, "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"serve", "--help"}, {"help"}, {"seed", "-h"}, {"version"}, {"-version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if args[len(args)-1] == "version" || args[0] == "-version" {
			if !strings.HasPrefix(string(out), "launchdir 9.8.7\ncommit:   0123abc\nbuilt:    2026-11-26T08:00:00Z\n") {
				t.Fatalf("%v: %q", args, out)
			}
		}
	}
	if err := exec.Command(bin, "-bogus").Run(); err == nil {
		t.Fatal("-bogus exited 0")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("-bogus: %v", err)
	}
}

// healthcheck exits 0 against a healthy server (a wildcard listen address
// is asked on loopback) and fails when nothing answers or /readyz says no.
func TestHealthcheck(t *testing.T) {
	c := startChild(t, "-db", filepath.Join(t.TempDir(), "h.db"), "-demo=false")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(c.base, "http://"))
	for _, args := range [][]string{{"-addr", "127.0.0.1:" + port}, {"-addr", "0.0.0.0:" + port, "-ready"}, {"-addr", ":" + port}} {
		out, err := runCmd(t, append([]string{"healthcheck"}, args...)...)
		if err != nil || !strings.Contains(out, `"status"`) {
			t.Fatalf("%v: %v %q", args, err, out)
		}
	}
	if _, err := runCmd(t, "healthcheck", "-addr", freeAddr(t), "-timeout", "1s"); err == nil {
		t.Fatal("healthy with nothing listening")
	}
	if _, err := runCmd(t, "healthcheck", "-addr", "nope"); err == nil {
		t.Fatal("bad -addr accepted")
	}
}
