package server

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressible are the media types worth compressing: JSON (API, problems,
// the OpenAPI document, MCP), HTML pages, feeds, CSS, JavaScript, SVG.
// Raster images (PNG, JPEG, WebP) are compressed already and event
// streams must not be buffered, so neither is listed.
var compressible = []string{
	"application/json", "application/problem+json", "application/merge-patch+json", "application/schema+json",
	"text/html", "text/plain", "text/css", "text/javascript", "application/javascript",
	"application/atom+xml", "application/rss+xml", "application/feed+json", "application/xml", "text/xml",
	"image/svg+xml",
}

// compress answers with zstd or gzip as the client's Accept-Encoding
// prefers (zstd on a tie), for bodies of 1 KB and more.
//
// ETags: a compressed body is not byte-identical to the identity one, so
// its strong ETag becomes weak (W/"…"), and so does a 304's when the
// client accepts a compression: If-None-Match is compared weakly by every
// handler here, so revalidation keeps answering 304.
func compress(next http.Handler) http.Handler {
	// Fastest levels: an API body is small and answered in ~0.1 ms, so the
	// default gzip level would double that for a few % fewer bytes.
	wrap, err := gzhttp.NewWrapper(gzhttp.ContentTypes(compressible), gzhttp.MinSize(1024),
		gzhttp.CompressionLevel(gzip.BestSpeed), gzhttp.ZstdCompressionLevel(int(zstd.SpeedFastest)))
	if err != nil { // only for invalid options, fixed above
		panic(err)
	}
	inner := wrap(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepts := acceptsCompression(r.Header.Get("Accept-Encoding"))
		inner.ServeHTTP(&weakETag{ResponseWriter: w, accepts: accepts}, r)
	})
}

func acceptsCompression(ae string) bool {
	ae = strings.ToLower(ae)
	return strings.Contains(ae, "gzip") || strings.Contains(ae, "zstd")
}

// weakETag sits under the compressor and weakens the ETag as it leaves.
type weakETag struct {
	http.ResponseWriter
	accepts, done bool
}

func (w *weakETag) WriteHeader(code int) {
	if !w.done {
		w.done = true
		h := w.ResponseWriter.Header()
		if et := h.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") &&
			(h.Get("Content-Encoding") != "" || (code == http.StatusNotModified && w.accepts)) {
			h.Set("ETag", "W/"+et)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *weakETag) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *weakETag) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *weakETag) Unwrap() http.ResponseWriter { return w.ResponseWriter }
