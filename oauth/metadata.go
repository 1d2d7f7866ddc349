package oauth

import (
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
func (s *Server) ProtectedResourceMetadata() map[string]any {
	return map[string]any{
		"resource":                 s.resource,
		"authorization_servers":    []string{s.base},
		"scopes_supported":         ops.AllScopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            s.App.Cfg.SiteName + " MCP server",
	}
}

// AuthorizationServerMetadata is the RFC 8414 document.
func (s *Server) AuthorizationServerMetadata() map[string]any {
	return map[string]any{
		"issuer":                                         s.base,
		"authorization_endpoint":                         s.authorizeURL(),
		"token_endpoint":                                 s.tokenURL(),
		"registration_endpoint":                          s.registerURL(),
		"revocation_endpoint":                            s.revokeURL(),
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
	writeJSON(w, http.StatusOK, s.ProtectedResourceMetadata())
}

func (s *Server) authorizationServerMetadata(w http.ResponseWriter, r *http.Request) {
	cors(w)
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.AuthorizationServerMetadata())
}
