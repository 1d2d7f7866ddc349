package oauth

import (
	"context"
	"net/http"

	"launchdir/ops"
)

// Grant types, response types and client authentication methods.
var (
	grantTypesSupported    = []string{"authorization_code", "refresh_token"}
	responseTypesSupported = []string{"code"}
	authMethodsSupported   = []string{"none", "client_secret_post", "client_secret_basic"}
)

// ProtectedResourceMetadata is the RFC 9728 document of the MCP resource.
func (s *Server) ProtectedResourceMetadata(ctx context.Context) map[string]any {
	return map[string]any{
		"resource":                 s.Resource(ctx),
		"authorization_servers":    []string{s.Issuer(ctx)},
		"scopes_supported":         ops.AllScopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            s.App.SiteName(ctx) + " MCP server",
	}
}

// AuthorizationServerMetadata is the RFC 8414 document.
func (s *Server) AuthorizationServerMetadata(ctx context.Context) map[string]any {
	return map[string]any{
		"issuer":                                         s.Issuer(ctx),
		"authorization_endpoint":                         s.authorizeURL(ctx),
		"token_endpoint":                                 s.tokenURL(ctx),
		"registration_endpoint":                          s.registerURL(ctx),
		"revocation_endpoint":                            s.revokeURL(ctx),
		"scopes_supported":                               ops.AllScopes,
		"response_types_supported":                       responseTypesSupported,
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          grantTypesSupported,
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          authMethodsSupported,
		"revocation_endpoint_auth_methods_supported":     authMethodsSupported,
		"client_id_metadata_document_supported":          s.Opts.HTTPClient != nil,
		"authorization_response_iss_parameter_supported": true,
	}
}

func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	cors(w)
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.ProtectedResourceMetadata(r.Context()))
}

func (s *Server) authorizationServerMetadata(w http.ResponseWriter, r *http.Request) {
	cors(w)
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.AuthorizationServerMetadata(r.Context()))
}
