package routes_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"launchdir/apitest"
)

// The document's info.license must name the license the repository ships
// (LICENSE at the root, Apache-2.0), so generated clients carry the truth.
func TestOpenAPILicenseMatchesLICENSE(t *testing.T) {
	text, err := os.ReadFile("../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "Apache License\n                           Version 2.0, January 2004") ||
		!strings.Contains(string(text), "END OF TERMS AND CONDITIONS") {
		t.Fatal("LICENSE is not the full Apache-2.0 text")
	}
	e := apitest.New(t, apitest.Options{})
	r := e.Do("GET", "/api/v1/openapi.json", nil)
	var doc struct {
		Info struct {
			License map[string]string `json:"license"`
		} `json:"info"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if l := doc.Info.License; l["identifier"] != "Apache-2.0" || l["url"] != "" {
		t.Fatalf("info.license = %v", l)
	}
}
