package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"launchdir/ops"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource URIs. Listings and blog posts are readable by slug; resources/list
// names the most voted live listings and the newest blog posts.
const (
	listingURIPrefix = "launchdir://listings/"
	blogURIPrefix    = "launchdir://blog/"
	listedListings   = 50
	listedBlogPosts  = 20
)

func (h *Handler) addResources(s *sdk.Server) {
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		Name: "listing", Title: "Listing profile", URITemplate: listingURIPrefix + "{slug}", MIMEType: "application/json",
		Description: "A live listing's full public profile (the get_listing tool's JSON), by slug.",
	}, h.readVia("get_listing", listingURIPrefix))
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		Name: "blog_post", Title: "Blog post", URITemplate: blogURIPrefix + "{slug}", MIMEType: "application/json",
		Description: "A blog post with its Markdown text and FAQs (the get_blog_post tool's JSON), by slug.",
	}, h.readVia("get_blog_post", blogURIPrefix))
	s.AddReceivingMiddleware(h.listResourcesMiddleware)
}

// readVia reads a resource by calling a public operation with the slug taken
// from the URI, so resources and tools can never disagree.
func (h *Handler) readVia(opID, prefix string) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		slug, ok := strings.CutPrefix(uri, prefix)
		op := h.app.Table.Get(opID)
		if !ok || slug == "" || strings.ContainsAny(slug, "/?#") || op == nil {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		p, _ := h.principal(ctx, req.Extra)
		res, err := h.app.Exec.Call(ctx, op, p, map[string]any{"slug": slug}, "", nil)
		if err != nil {
			e := ops.AsError(err)
			if e.Code == ops.CodeNotFound || e.Code == ops.CodeInvalid {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("%s", e.Detail)
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(res.Body)}}}, nil
	}
}

// listResourcesMiddleware puts the current top listings and newest blog
// posts in front of the first page of resources/list (the set changes with
// the data, so it cannot be registered once).
func (h *Handler) listResourcesMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "resources/list" {
			return res, err
		}
		lr, ok := res.(*sdk.ListResourcesResult)
		if !ok {
			return res, nil
		}
		if p, ok := req.GetParams().(*sdk.ListResourcesParams); ok && p != nil && p.Cursor != "" {
			return res, nil
		}
		dyn := h.dynamicResources(ctx)
		lr.Resources = append(dyn, lr.Resources...)
		return lr, nil
	}
}

func (h *Handler) dynamicResources(ctx context.Context) []*sdk.Resource {
	out := []*sdk.Resource{}
	type item struct {
		Slug, Name, Tagline, Title, Summary string
	}
	list := func(opID string, args map[string]any) []item {
		op := h.app.Table.Get(opID)
		if op == nil {
			return nil
		}
		res, err := h.app.Exec.Call(ctx, op, nil, args, "", nil)
		if err != nil {
			h.app.Log.Warn("mcp resources/list", "op", opID, "err", err)
			return nil
		}
		var page struct {
			Items []item `json:"items"`
		}
		json.Unmarshal(res.Body, &page)
		return page.Items
	}
	for _, it := range list("search_listings", map[string]any{"sort": "votes", "per_page": int64(listedListings)}) {
		if it.Slug == "" {
			continue
		}
		out = append(out, &sdk.Resource{URI: listingURIPrefix + it.Slug, Name: it.Slug, Title: it.Name,
			Description: it.Tagline, MIMEType: "application/json"})
	}
	for _, it := range list("list_blog_posts", map[string]any{"per_page": int64(listedBlogPosts)}) {
		if it.Slug == "" {
			continue
		}
		out = append(out, &sdk.Resource{URI: blogURIPrefix + it.Slug, Name: "blog/" + it.Slug, Title: it.Title,
			Description: it.Summary, MIMEType: "application/json"})
	}
	return out
}

// addPrompts registers the guided flows.
func (h *Handler) addPrompts(s *sdk.Server) {
	s.AddPrompt(&sdk.Prompt{
		Name:        "submit_product",
		Title:       "Submit a product to the directory",
		Description: "Walks through submitting a product by its website URL: draft, review, submit, publish free or paid.",
		Arguments: []*sdk.PromptArgument{
			{Name: "url", Title: "Website URL", Description: "The product's website, e.g. https://example.com", Required: true},
			{Name: "plan", Title: "Plan", Description: "free (queued for a launch week) or paid (launch product through checkout); ask the user when empty"},
		},
	}, h.submitProductPrompt)
}

func (h *Handler) submitProductPrompt(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	url := strings.TrimSpace(req.Params.Arguments["url"])
	if url == "" {
		return nil, fmt.Errorf("the url argument is required")
	}
	plan := strings.ToLower(strings.TrimSpace(req.Params.Arguments["plan"]))
	publish := "Ask the user whether to publish for free or paid, then: free = choose_free_listing with the listing_id (needs the badge on their homepage and a complete founder profile; it is queued for a launch week some weeks ahead); paid = quote_order and then create_checkout with an item {product: \"launch\", listing_id} (optionally a week from list_products)."
	switch plan {
	case "free":
		publish = "Publish for free: choose_free_listing with the listing_id. It needs the badge on the homepage (get_badges gives the embed code) and a complete founder profile; the listing is queued for a launch week some weeks ahead."
	case "paid":
		publish = "Publish paid: list_products, quote_order with an item {product: \"launch\", listing_id} (optionally a week), show the price, then create_checkout with the same items."
	}
	text := fmt.Sprintf(`Submit the product at %s to %s. Use the tools of this server; they need the user to be signed in (scope listings:write, and orders:write for paid publishing).

1. Call submit_listing with url %q (pass an idempotency_key so a retry does not create a second draft). It returns a draft with status crawling.
2. Poll get_draft with the draft id every few seconds until status is ready. The service reads the website (respecting robots.txt) and an AI drafts the profile with evidence quotes; values not found on the site stay blank and are never invented.
3. Show the user the drafted fields with their evidence and what is still missing. Apply the user's corrections with update_draft (fields, faqs, founders, socials, story, milestones); never invent facts the user did not give.
4. Call submit_draft to save it as the user's listing; it returns listing_id. Nothing is published yet.
5. %s
   For paid publishing give the user the checkout_url: they review and pay on that page themselves. Never ask for card details. After payment get_order shows the status.`,
		url, h.app.SiteName(ctx), url, publish)
	return &sdk.GetPromptResult{
		Description: "Submit " + url + " and publish it",
		Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}},
	}, nil
}

// complete suggests prompt and resource template arguments: listing and
// blog slugs matching the typed text, and the submit_product plans.
func (h *Handler) complete(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	values := []string{}
	p := req.Params
	if p != nil && p.Ref != nil {
		typed := strings.ToLower(strings.TrimSpace(p.Argument.Value))
		slugs := func(opID string, args map[string]any) {
			op := h.app.Table.Get(opID)
			if op == nil {
				return
			}
			res, err := h.app.Exec.Call(ctx, op, nil, args, "", nil)
			if err != nil {
				return
			}
			var page struct {
				Items []struct {
					Slug string `json:"slug"`
				} `json:"items"`
			}
			json.Unmarshal(res.Body, &page)
			for _, it := range page.Items {
				if it.Slug != "" {
					values = append(values, it.Slug)
				}
			}
		}
		args := map[string]any{"per_page": int64(10)}
		if typed != "" {
			args["q"] = typed
		}
		switch {
		case p.Ref.Type == "ref/prompt" && p.Ref.Name == "submit_product" && p.Argument.Name == "plan":
			for _, v := range []string{"free", "paid"} {
				if strings.HasPrefix(v, typed) {
					values = append(values, v)
				}
			}
		case p.Ref.Type == "ref/resource" && p.Ref.URI == listingURIPrefix+"{slug}" && p.Argument.Name == "slug":
			if typed == "" {
				args["sort"] = "votes"
			}
			slugs("search_listings", args)
		case p.Ref.Type == "ref/resource" && p.Ref.URI == blogURIPrefix+"{slug}" && p.Argument.Name == "slug":
			slugs("list_blog_posts", args)
		}
	}
	return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
