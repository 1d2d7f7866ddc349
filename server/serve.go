package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"launchdir/routes"
)

// Serve runs the server with the serve flags in args until SIGINT or
// SIGTERM, then shuts down gracefully.
func Serve(args []string, stderr io.Writer) error {
	cfg := DefaultConfig()
	fs := cfg.flags()
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if err := cfg.Check(); err != nil {
		return err
	}
	log, flushLog := cfg.NewBufferedLogger(stderr)
	defer flushLog()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	svc, err := Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer svc.Close()
	stopPprof, err := startPprof(cfg.PprofAddr, log)
	if err != nil {
		return err
	}
	defer stopPprof()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %v", cfg.Addr, err)
	}
	// ReadTimeout bounds slow uploads (bodies are at most 1 MiB); writes are
	// not bounded because a draft submitted over MCP with progress may wait
	// up to a minute for the crawl.
	srv := &http.Server{Handler: svc.Handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: routes.MaxHeaderBytes}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(routes.ProblemListener(ln)) }()
	log.Info("serving", "addr", ln.Addr().String(), "api", svc.App.APIURL(ctx), "mcp", svc.App.MCPURL(ctx), "db", cfg.DB)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
