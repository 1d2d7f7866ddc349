package crawl

import (
	"net/url"
	"regexp"
	"strings"
)

// socialLink says which platform a URL is a profile on, and whether it is a
// person's profile (e.g. linkedin.com/in/...) rather than a company's.
func socialLink(u *url.URL) (platform string, personal bool) {
	host := strings.ToLower(u.Hostname())
	for _, p := range []string{"www.", "m.", "mobile.", "mbasic."} {
		host = strings.TrimPrefix(host, p)
	}
	segs := pathSegments(u.Path)
	first := ""
	if len(segs) > 0 {
		first = segs[0]
	}
	switch {
	case host == "linkedin.com" || strings.HasSuffix(host, ".linkedin.com"):
		switch first {
		case "company", "showcase", "school":
			return "linkedin", false
		case "in":
			return "linkedin", true
		}
	case host == "twitter.com" || host == "x.com":
		if first != "" && !oneOf(first, "intent", "share", "home", "search", "hashtag", "i", "login") {
			return "x", false
		}
	case host == "facebook.com" || host == "fb.com":
		if first != "" && !oneOf(first, "sharer", "sharer.php", "share", "dialog", "plugins", "login") {
			return "facebook", false
		}
	case host == "instagram.com":
		if first != "" && !oneOf(first, "p", "reel", "explore", "accounts") {
			return "instagram", false
		}
	case host == "youtube.com":
		if strings.HasPrefix(first, "@") || oneOf(first, "c", "channel", "user") {
			return "youtube", false
		}
	case host == "tiktok.com":
		if strings.HasPrefix(first, "@") {
			return "tiktok", false
		}
	case host == "github.com":
		if first != "" && !oneOf(first, "features", "about", "pricing", "login", "sponsors", "marketplace") {
			return "github", false
		}
	case host == "reddit.com":
		if oneOf(first, "r", "user", "u") {
			return "reddit", false
		}
	case host == "medium.com" || strings.HasSuffix(host, ".medium.com"):
		return "medium", false
	case strings.HasSuffix(host, ".substack.com"):
		return "substack", false
	case host == "producthunt.com":
		if oneOf(first, "products", "posts") || strings.HasPrefix(first, "@") {
			return "producthunt", false
		}
	case host == "discord.gg":
		return "discord", false
	case host == "discord.com" || host == "discordapp.com":
		if first == "invite" {
			return "discord", false
		}
	}
	return "", false
}

func oneOf(s string, opts ...string) bool {
	for _, o := range opts {
		if s == o {
			return true
		}
	}
	return false
}

var vimeoID = regexp.MustCompile(`^/(video/)?\d+`)

// isVideoURL recognises links to a playable video (not a channel).
func isVideoURL(u *url.URL) bool {
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	p := strings.ToLower(u.Path)
	switch {
	case host == "youtube.com" || host == "youtube-nocookie.com":
		return p == "/watch" || strings.HasPrefix(p, "/embed/") || strings.HasPrefix(p, "/shorts/")
	case host == "youtu.be":
		return len(p) > 1
	case host == "vimeo.com" || host == "player.vimeo.com":
		return vimeoID.MatchString(p)
	case host == "loom.com":
		return strings.HasPrefix(p, "/share/") || strings.HasPrefix(p, "/embed/")
	case strings.HasSuffix(host, "wistia.com") || strings.HasSuffix(host, "wistia.net"):
		return strings.Contains(p, "/medias/") || strings.Contains(p, "/iframe/")
	}
	return strings.HasSuffix(p, ".mp4") || strings.HasSuffix(p, ".webm")
}
