package crawl

import (
	"sort"
	"strings"
)

// isoCountries maps ISO 3166-1 alpha-2 codes to English short names.
const isoCountries = `AD:Andorra|AE:United Arab Emirates|AF:Afghanistan|AG:Antigua and Barbuda|AL:Albania|AM:Armenia|AO:Angola|AR:Argentina|AT:Austria|AU:Australia|AZ:Azerbaijan|BA:Bosnia and Herzegovina|BB:Barbados|BD:Bangladesh|BE:Belgium|BF:Burkina Faso|BG:Bulgaria|BH:Bahrain|BI:Burundi|BJ:Benin|BN:Brunei|BO:Bolivia|BR:Brazil|BS:Bahamas|BT:Bhutan|BW:Botswana|BY:Belarus|BZ:Belize|CA:Canada|CD:Democratic Republic of the Congo|CF:Central African Republic|CG:Congo|CH:Switzerland|CI:Côte d'Ivoire|CL:Chile|CM:Cameroon|CN:China|CO:Colombia|CR:Costa Rica|CU:Cuba|CV:Cape Verde|CY:Cyprus|CZ:Czechia|DE:Germany|DJ:Djibouti|DK:Denmark|DM:Dominica|DO:Dominican Republic|DZ:Algeria|EC:Ecuador|EE:Estonia|EG:Egypt|ER:Eritrea|ES:Spain|ET:Ethiopia|FI:Finland|FJ:Fiji|FR:France|GA:Gabon|GB:United Kingdom|GD:Grenada|GE:Georgia|GH:Ghana|GI:Gibraltar|GM:Gambia|GN:Guinea|GQ:Equatorial Guinea|GR:Greece|GT:Guatemala|GW:Guinea-Bissau|GY:Guyana|HK:Hong Kong|HN:Honduras|HR:Croatia|HT:Haiti|HU:Hungary|ID:Indonesia|IE:Ireland|IL:Israel|IN:India|IQ:Iraq|IR:Iran|IS:Iceland|IT:Italy|JM:Jamaica|JO:Jordan|JP:Japan|KE:Kenya|KG:Kyrgyzstan|KH:Cambodia|KM:Comoros|KN:Saint Kitts and Nevis|KP:North Korea|KR:South Korea|KW:Kuwait|KZ:Kazakhstan|LA:Laos|LB:Lebanon|LC:Saint Lucia|LI:Liechtenstein|LK:Sri Lanka|LR:Liberia|LS:Lesotho|LT:Lithuania|LU:Luxembourg|LV:Latvia|LY:Libya|MA:Morocco|MC:Monaco|MD:Moldova|ME:Montenegro|MG:Madagascar|MK:North Macedonia|ML:Mali|MM:Myanmar|MN:Mongolia|MO:Macao|MR:Mauritania|MT:Malta|MU:Mauritius|MV:Maldives|MW:Malawi|MX:Mexico|MY:Malaysia|MZ:Mozambique|NA:Namibia|NE:Niger|NG:Nigeria|NI:Nicaragua|NL:Netherlands|NO:Norway|NP:Nepal|NZ:New Zealand|OM:Oman|PA:Panama|PE:Peru|PG:Papua New Guinea|PH:Philippines|PK:Pakistan|PL:Poland|PR:Puerto Rico|PS:Palestine|PT:Portugal|PY:Paraguay|QA:Qatar|RO:Romania|RS:Serbia|RU:Russia|RW:Rwanda|SA:Saudi Arabia|SC:Seychelles|SD:Sudan|SE:Sweden|SG:Singapore|SI:Slovenia|SK:Slovakia|SL:Sierra Leone|SM:San Marino|SN:Senegal|SO:Somalia|SR:Suriname|SS:South Sudan|SV:El Salvador|SY:Syria|SZ:Eswatini|TD:Chad|TG:Togo|TH:Thailand|TJ:Tajikistan|TM:Turkmenistan|TN:Tunisia|TO:Tonga|TR:Turkey|TT:Trinidad and Tobago|TW:Taiwan|TZ:Tanzania|UA:Ukraine|UG:Uganda|US:United States|UY:Uruguay|UZ:Uzbekistan|VA:Vatican City|VE:Venezuela|VN:Vietnam|XK:Kosovo|YE:Yemen|ZA:South Africa|ZM:Zambia|ZW:Zimbabwe`

// countryAliases are other English names pages commonly use.
var countryAliases = map[string]string{
	"usa": "US", "u.s.a.": "US", "united states of america": "US", "the united states": "US",
	"uk": "GB", "u.k.": "GB", "great britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB",
	"czech republic": "CZ", "the netherlands": "NL", "holland": "NL", "republic of korea": "KR",
	"türkiye": "TR", "turkiye": "TR", "ivory coast": "CI", "russian federation": "RU",
	"viet nam": "VN", "uae": "AE", "swaziland": "SZ", "macedonia": "MK", "burma": "MM",
	"cabo verde": "CV", "deutschland": "DE", "españa": "ES", "österreich": "AT", "schweiz": "CH",
	"suisse": "CH", "svizzera": "CH", "nederland": "NL", "italia": "IT", "sverige": "SE", "belgique": "BE",
	"belgië": "BE", "danmark": "DK", "norge": "NO", "suomi": "FI", "polska": "PL", "éire": "IE",
	"méxico": "MX", "brasil": "BR", "u.s.": "US", "frankreich": "FR", "espagne": "ES", "allemagne": "DE",
}

var (
	countryByCode = map[string]string{}
	codeByName    = map[string]string{}
	// countryNameList holds the keys of codeByName, longest first, so
	// "South Sudan" is tried before "Sudan" and results are deterministic.
	countryNameList []string
)

func init() {
	for _, pair := range strings.Split(isoCountries, "|") {
		code, name, _ := strings.Cut(pair, ":")
		countryByCode[code] = name
		codeByName[strings.ToLower(name)] = code
	}
	for alias, code := range countryAliases {
		codeByName[alias] = code
	}
	for name := range codeByName {
		countryNameList = append(countryNameList, name)
	}
	sort.Slice(countryNameList, func(i, j int) bool {
		a, b := countryNameList[i], countryNameList[j]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
	})
}

// countryCode maps an ISO code or an English country name to the ISO code.
func countryCode(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) == 2 {
		up := strings.ToUpper(s)
		if _, ok := countryByCode[up]; ok {
			return up, true
		}
	}
	code, ok := codeByName[strings.ToLower(normalizeText(s))]
	return code, ok
}

// countryNames are all spellings that denote code, lower-cased.
func countryNames(code string) []string {
	var out []string
	if n, ok := countryByCode[code]; ok {
		out = append(out, strings.ToLower(n))
	}
	for alias, c := range countryAliases {
		if c == code {
			out = append(out, alias)
		}
	}
	return out
}
