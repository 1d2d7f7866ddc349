package mcp_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app/media"
)

// The image tools take base64 (or a URL) with the same limits as REST: a
// 5 MiB file fits the MCP body, one byte more is refused naming the limit.
func TestImageToolsBase64(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, conn{hdr: bearer(e.APIKey("owner@example.com"))})
	res := call(t, cs, "set_listing_logo", map[string]any{"listing_id": 1, "image_base64": base64.StdEncoding.EncodeToString(apitest.PaddedPNG(media.MaxBytes))})
	if res.IsError || !strings.Contains(text(res), `"logo_url":"`+e.URL+`/media/`) {
		t.Fatalf("5 MiB logo: %s", text(res))
	}
	res = call(t, cs, "set_listing_logo", map[string]any{"listing_id": 1, "image_base64": base64.StdEncoding.EncodeToString(apitest.PaddedPNG(media.MaxBytes + 1))})
	if !res.IsError || !strings.Contains(text(res), "the limit is 5242880 bytes") {
		t.Errorf("5 MiB + 1: %s", text(res))
	}
	res = call(t, cs, "add_screenshot", map[string]any{"listing_id": 1, "caption": "Home", "image_base64": base64.StdEncoding.EncodeToString(apitest.JPEG(800, 500))})
	if res.IsError || !strings.Contains(text(res), `"caption":"Home"`) {
		t.Errorf("screenshot: %s", text(res))
	}
	res = call(t, cs, "set_listing_logo", map[string]any{"listing_id": 2, "image_base64": base64.StdEncoding.EncodeToString(apitest.PNG(32, 32))})
	if !res.IsError || !strings.Contains(text(res), "not found") {
		t.Errorf("another user's listing: %s", text(res))
	}
}
