package routes_test

import (
	"net/http"
	"strings"
	"testing"

	"launchdir/apitest"
)

// Small input bugs found by the hostile-tester run of issue 12.
func TestRequiredDateAndMediaTypes(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true})
	k := apitest.Bearer(e.APIKey("owner@example.com"))
	// A required date may not be empty (format checks skip empty strings).
	r := e.Do("POST", "/api/v1/me/listings/1/milestones", map[string]any{"date": "", "title": "t"}, k...)
	if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"date"`) {
		t.Errorf("empty milestone date: %d %s", r.Status, r.Body)
	}
	// Bodies must say they are JSON; merge patches are JSON objects too.
	send := func(method, path, ct, body string) *http.Response {
		req, _ := http.NewRequest(method, e.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", k[1])
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	patch := `{"fields":{"tagline":"Merged"}}`
	for _, tc := range []struct {
		ct     string
		status int
	}{
		{"", 415},
		{"application/json-patch+json", 415},
		{"text/plain", 415},
		{"application/vnd.api+json", 415},
		{"application/json; charset=utf-8", 200},
		{"application/merge-patch+json", 200},
	} {
		resp := send("PATCH", "/api/v1/me/listings/1", tc.ct, patch)
		if resp.StatusCode != tc.status || (tc.status == 415 && resp.Header.Get("Content-Type") != "application/problem+json") {
			t.Errorf("Content-Type %q: %d %s", tc.ct, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	// An empty body needs no Content-Type.
	if resp := send("POST", "/api/v1/me/listings/1/updates", "", ""); resp.StatusCode != 400 {
		t.Errorf("empty body: %d", resp.StatusCode)
	}
}
