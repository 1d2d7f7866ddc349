package people

// Response bodies of people operations (each an Output in the table; the
// OpenAPI document and MCP output schemas are generated from them).

// Account is get_account's body.
type Account struct {
	User       User          `json:"user"`
	Scopes     []string      `json:"scopes" enum:"$scope"`
	Credential string        `json:"credential" enum:"api_key,oauth"`
	Counts     AccountCounts `json:"counts"`
}

// AccountCounts counts what the user has.
type AccountCounts struct {
	Drafts   int `json:"drafts"`
	Listings int `json:"listings"`
	Orders   int `json:"orders"`
	Claims   int `json:"claims"`
}
