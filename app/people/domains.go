package people

// disposableDomains are well-known disposable and throwaway mail services:
// an account at one can vote, but its votes wait for the site team. The
// list is short on purpose (the commonest services); rings of accounts at
// any private domain are caught by the ring rule instead.
var disposableDomains = setOf(
	"10minutemail.com", "10minutemail.net", "20minutemail.com", "33mail.com", "anonaddy.me", "burnermail.io",
	"discard.email", "dispostable.com", "dropmail.me", "emailondeck.com", "fakeinbox.com", "fakemail.net",
	"getairmail.com", "getnada.com", "guerrillamail.biz", "guerrillamail.com", "guerrillamail.de", "guerrillamail.info",
	"guerrillamail.net", "guerrillamail.org", "guerrillamailblock.com", "harakirimail.com", "inboxkitten.com",
	"incognitomail.org", "mail.tm", "mailcatch.com", "maildrop.cc", "mailinator.com", "mailinator.net", "mailinator2.com",
	"mailnesia.com", "mailpoof.com", "mintemail.com", "moakt.com", "mohmal.com", "mytemp.email", "nada.email",
	"sharklasers.com", "spam4.me", "spambox.us", "spamgourmet.com", "temp-mail.io", "temp-mail.org", "tempail.com",
	"tempmail.com", "tempmail.dev", "tempmail.net", "tempmailo.com", "tempr.email", "throwawaymail.com", "tmail.ws",
	"tmpmail.net", "tmpmail.org", "trashmail.com", "trashmail.de", "trashmail.net", "yopmail.com", "yopmail.fr",
	"yopmail.net", "emailfake.com", "grr.la", "pokemail.net", "mvrht.net", "mailsac.com", "byom.de",
)

// publicMailDomains are large mailbox providers: many unrelated people
// share them, so a shared domain links nobody.
var publicMailDomains = setOf(
	"gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "hotmail.co.uk", "hotmail.fr", "live.com", "msn.com",
	"yahoo.com", "yahoo.co.uk", "yahoo.fr", "ymail.com", "icloud.com", "me.com", "mac.com", "aol.com", "proton.me",
	"protonmail.com", "pm.me", "gmx.de", "gmx.net", "gmx.com", "web.de", "t-online.de", "mail.ru", "yandex.ru",
	"yandex.com", "qq.com", "163.com", "126.com", "naver.com", "orange.fr", "free.fr", "laposte.net", "libero.it",
	"zoho.com", "fastmail.com", "hey.com", "tutanota.com", "tuta.io",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
