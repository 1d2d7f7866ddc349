package cli

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"launchdir/server"
)

const healthcheckUsage = `launchdir healthcheck [-addr HOST:PORT] [-ready] [-timeout 5s]   exit 0 when the server answers /healthz (or /readyz)
`

// healthcheckCmd asks a running server whether it is healthy, for
// container HEALTHCHECKs on images without a shell or curl. It reads the
// same -addr (LAUNCHDIR_ADDR) the server listens on.
func healthcheckCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	addr := fs.String("addr", server.DefaultConfig().Addr, "the server's listen address (a wildcard host is asked on loopback)")
	ready := fs.Bool("ready", false, "ask /readyz (database writable, replica in sync) instead of /healthz")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	if err := server.ParseFlags(fs, args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("bad -addr %q: %v", *addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	path := "/healthz"
	if *ready {
		path = "/readyz"
	}
	url := "http://" + net.JoinHostPort(host, port) + path
	resp, err := (&http.Client{Timeout: *timeout}).Get(url)
	if err != nil {
		return fmt.Errorf("healthcheck %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck %s: %s %s", url, resp.Status, body)
	}
	fmt.Fprintf(stdout, "%s\n", body)
	return nil
}
