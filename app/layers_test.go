package app_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is the layering of the business layer: each package may
// import only these packages of this module. A new import between domains
// is a design decision, made here first.
var allowedImports = map[string][]string{
	"app/kernel":   {"db", "ops"},
	"app/catalog":  {"app/kernel", "db", "ops"},
	"app/people":   {"app/kernel", "db", "ops"},
	"app/vat":      {"ops"},
	"app/commerce": {"app/kernel", "app/vat", "db", "ops"},
	"app/owning":   {"app/kernel", "app/people", "db", "ops"},
	// conversation reads people's and owners' tables in its own
	// transactions; it needs no other domain's rules (see its package doc).
	"app/conversation": {"app/kernel", "db", "ops"},
	// webhooks delivers through the crawler's SSRF-guarded client.
	"app/webhooks": {"app/kernel", "crawl", "db", "ops"},
	"app/digest":   {"app/kernel", "db", "ops"},
	"app/media":    {"app/kernel", "db", "ops"},
	"app/drafting": {"app/kernel", "app/owning", "app/media", "crawl", "db", "ops"},
	"app/admin":    {"app/kernel", "app/people", "app/owning", "app/commerce", "app/media", "db", "ops"},
	// sites: the network of directories (issue 24); its rules live in the
	// kernel (site routing, settings, the category rule) and db (views).
	"app/sites": {"app/kernel", "app/media", "db", "ops"},
	"app": {"app/kernel", "app/catalog", "app/people", "app/commerce", "app/owning", "app/drafting", "app/admin", "app/media", "app/vat", "app/conversation", "app/webhooks", "app/digest",
		"app/sites", "db", "ops"},
}

// TestImportsOnlyGoDown reads every non-test file of the business layer and
// fails on an import of this module that its layer does not allow: no
// domain imports a door (routes, mcp, oauth, site, server, cli) or an
// adapter, and no lower domain imports a higher one.
func TestImportsOnlyGoDown(t *testing.T) {
	root := ".."
	for pkg, allowed := range allowedImports {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", pkg, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				local, ok := strings.CutPrefix(p, "launchdir/")
				if ok && !slices.Contains(allowed, local) {
					t.Errorf("%s imports %s; %s may import only %v", f, p, pkg, allowed)
				}
			}
		}
	}
	// Every business package is in the table.
	dirs, _ := filepath.Glob(filepath.Join(root, "app", "*"))
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			if _, ok := allowedImports["app/"+filepath.Base(d)]; !ok {
				t.Errorf("package app/%s has no place in allowedImports", filepath.Base(d))
			}
		}
	}
}
