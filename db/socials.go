package db

// Socials maps a platform key (x, linkedin, github…) to a profile URL. It
// is a named type so the API documents it once, as the Socials component:
// inline maps in several schemas made code generators (ogen) invent the
// same name for two of them (Draft.founder_socials, DraftFounder.socials).
type Socials map[string]string
