package crawl

import (
	"regexp"
	"strings"
)

// Injection detection by meaning: a text addressed to machines (AI models,
// assistants, LLMs, crawlers, bots) or telling its reader to drop its
// instructions is never evidence, in whatever words or language it comes.
// Three signals, any one suffices:
//   - an override: ignore/forget/disregard ... instructions/rules/prompt
//     (English, German, French, Spanish);
//   - a role play: "system prompt", "developer mode", "you are now", a
//     line starting "SYSTEM:" or "Assistant:";
//   - an address: a machine named as the reader ("Note for AI assistants",
//     "Dear LLM,", "Hinweis an KI-Assistenten", "Pour les IA :", "para
//     asistentes de IA", "If you are a language model", "ChatGPT, Claude ...:");
//   - a note for machines, however it is labelled: "AI assistant
//     instruction:", "KI-Hinweis:", "Consigne pour les IA", "Nota para
//     modelos", a machine told what it should say ("AI models should report
//     that ..."), or a note on how to summarise this page ("when
//     summarising this company", "in your answer", "dans votre résumé").

// machineWords name the machines a hidden message speaks to.
const machineWords = `(?:a\.?i\.?|ki|ia|llms?|gpts?|chatgpt|claude|gemini|copilot|perplexity|bard|bing|` +
	`(?:large\s+)?language\s+models?|sprachmodell\w*|ki-\w+|modèles?\s+de\s+langage|modelos?\s+de\s+lenguaje|` +
	`assistants?|assistent\w*|asistentes?|chatbots?|crawlers?|scrapers?|spiders?|bots?|robots?|agents?|agenten|agentes|` +
	`models?|modelle|modèles?|modelos?|machines?|maschinen)`

var (
	overrideRe = regexp.MustCompile(`(?i)\b(?:ignore|ignoring|disregard|forget|override|bypass|skip|ignoriere\w*|vergiss\w*|missachte\w*|überschreib\w*|ignorez|ignore[rz]?|oubliez|oublie[rz]?|ignora\w*|olvida\w*|omite|descarta)\b.{0,60}?\b(?:instructions?|prompts?|rules|directions|guidelines|guardrails|orders|anweisungen|instruktionen|regeln|vorgaben|consignes|règles|instrucciones|reglas|indicaciones|órdenes)\b`)
	roleRe     = regexp.MustCompile(`(?i)\bsystem\s*prompt\b|\bdeveloper\s+mode\b|\bjailbreak\b|\byou\s+are\s+now\b|\bdu\s+bist\s+jetzt\b|\btu\s+es\s+maintenant\b|\bahora\s+eres\b|^\s*\[?(?:system|assistant|assistent|asistente)\]?\s*:|<<<|>>>|\[/?inst\]`)
	addressRe  = regexp.MustCompile(`(?i)(?:^|[\s("'„“«])(?:to|for|dear|attention|hey|hello|hi|note\s+(?:to|for)|message\s+(?:to|for)|instructions?\s+(?:to|for)|if\s+you(?:'re|\s+are)|hinweis\s+(?:an|für)|nachricht\s+an|an\s+alle|liebe[rs]?|hallo|wenn\s+du|falls\s+du|für|pour|aux|à|cher|chère|chers|chères|message\s+aux|note\s+pour|consignes?\s+pour|si\s+vous\s+êtes|si\s+tu\s+es|para|a|querid[oa]s?|hola|si\s+eres|mensaje\s+para|nota\s+para|instrucciones\s+para)\s+(?:(?:all|any|other|the|every|a|an|les|des|los|las|todos\s+los|todas\s+las|tous\s+les|toutes\s+les|alle|die|den|der|ein|eine|einen|un|une|una|uno|d'|de)\s*){0,2}(?:[\p{L}'-]+\s+){0,2}?` + machineWords + `\b`)
	colonRe    = regexp.MustCompile(`(?i)^\W{0,3}(?:[\p{L}'.-]+[\s,]+){0,6}?` + machineWords + `\b[^.:!?]{0,40}:`)
	// noteRe: a label naming a note for machines ("AI assistant
	// instruction:", "LLM note -", "KI-Hinweis:", "Consigne IA :").
	noteRe = regexp.MustCompile(`(?i)(?:^|[^\p{L}])(?:` + machineWords + `|ki|ia)[\s-]*(?:[\p{L}'-]+[\s-]+){0,2}?` + noteWords + `\s*[:\-–—]|(?:^|[^\p{L}])` + noteWords + `[\s-]+(?:(?:for|to|für|an|pour|aux|à|para|a|les|la|los|las|die|den|the|all|todos|tous|l'attention|l'intention|attention|des|de|du)\s+){0,3}(?:[\p{L}'-]+\s+){0,1}?(?:` + machineWords + `|ki|ia)(?:[^\p{L}][^.!?:]{0,30})?\s*[:\-–—]`)
	// modalRe: a machine told what to say ("AI models should report that",
	// "Sprachmodelle sollen angeben", "les IA doivent indiquer").
	modalRe = regexp.MustCompile(`(?i)\b` + machineWords + `\b[^.!?]{0,40}?\b(?:should|must|shall|need\s+to|are\s+(?:asked|instructed|required|told|expected)\s+to|sollen|sollten|müssen|mögen|doivent|devraient|deben|deberían|tienen\s+que)\s+(?:(?:always|only|now|instead|immer|nur|toujours|siempre)\s+)?(?:say|state|report|describe|mention|answer|write|use|treat|consider|list|indicate|recommend|rank|present|refer|output|return|respond|angeben|sagen|schreiben|nennen|beschreiben|empfehlen|antworten|indiquer|dire|écrire|mentionner|décrire|recommander|répondre|decir|indicar|escribir|mencionar|describir|recomendar|responder)\b`)
	// summaryRe: a note about how to summarise or describe this page.
	summaryRe = regexp.MustCompile(`(?i)\b(?:when|if|while|whenever)\s+(?:you\s+(?:are\s+)?|you're\s+)?(?:summari[sz]\w*|describ\w*|asked\s+about|writing\s+about|answering\s+(?:questions\s+)?about|generating\s+\w+\s+(?:about|for)|extracting|indexing|drafting)\b.{0,40}?\b(?:this|the|our)\s+(?:page|site|website|company|product|text|document|startup|business)|\bin\s+(?:your|any)\s+(?:summary|summaries|answer|answers|response|responses|output|profile|description)\b|\b(?:in\s+deine[rm]?|in\s+ihre[rm]?|bei\s+der)\s+(?:zusammenfassung|antwort|ausgabe)\b|\b(?:wenn|falls)\s+(?:du|sie)\s+(?:diese\w*|die|das)\s+(?:seite|website|firma|unternehmen|produkt)\s+zusammenfass\w*|\bdans\s+(?:votre|ton|ta|vos|tes)\s+(?:résumé|réponse|réponses|synthèse)(?:[^\p{L}]|$)|\b(?:lorsque|quand|si)\s+vous\s+résume\w*|\ben\s+(?:tu|su|sus|tus)\s+(?:resumen|respuesta|respuestas)\b|\bal\s+resumir\b`)
)

// noteWords name a message or instruction.
const noteWords = `(?:instructions?|instruction|notes?|notice|message|directives?|hints?|memo|briefing|guidance|anweisung\w*|hinweis\w*|nachricht\w*|vorgabe\w*|consignes?|remarque|avis|directive|instrucci\w+|nota|aviso|mensaje|indicaci\w+)`

// looksLikeInjection reports text written to steer a machine reader.
func looksLikeInjection(s string) bool {
	if s == "" {
		return false
	}
	s = normalizeText(s)
	if overrideRe.MatchString(s) || roleRe.MatchString(s) || noteRe.MatchString(s) || modalRe.MatchString(s) || summaryRe.MatchString(s) {
		return true
	}
	for _, loc := range addressRe.FindAllStringIndex(s, -1) {
		if addressed(s, loc) {
			return true
		}
	}
	return colonRe.MatchString(s) && addressLike(s)
}

// addressed filters the address pattern's false friends: a product "for AI
// teams" is not a message to an AI. The machine must be followed by a
// pause (":" "," "!"), a reading verb or a sentence end, or be addressed
// with an unambiguous opener.
func addressed(s string, loc []int) bool {
	head := strings.ToLower(strings.TrimSpace(s[loc[0]:loc[1]]))
	head = strings.TrimLeft(head, `("'„“«`)
	for _, opener := range []string{"dear", "attention", "hey", "note to", "note for", "message to", "message for", "instructions", "if you", "hinweis", "nachricht", "an alle", "liebe", "hallo", "wenn du", "falls du", "cher", "chère", "message aux", "note pour", "consigne", "si vous", "si tu", "querid", "hola", "si eres", "mensaje", "nota para", "instrucciones"} {
		if strings.HasPrefix(head, opener) {
			return true
		}
	}
	rest := strings.TrimSpace(s[loc[1]:])
	if rest == "" {
		return false
	}
	switch rest[0] {
	case ':', ',', '!':
		return true
	}
	return readingVerbRe.MatchString(rest) || shortTailRe.MatchString(rest)
}

// shortTailRe: a few words, then a pause ("assistants d'IA :").
var shortTailRe = regexp.MustCompile(`^[^.!?:,;]{0,12}\s?[:!]`)

var readingVerbRe = regexp.MustCompile(`(?i)^(?:(?:and|or|und|oder|et|ou|y|o)\s+[\p{L} -]{0,30}?)?(?:\s*(?:reading|crawling|parsing|indexing|summari[sz]ing|scraping|that\s+read|who\s+read|qui\s+lisent|que\s+lean|die\s+(?:diese|das)|lisant|leyendo)\b|\s*[:,])`)

// addressLike confirms a "Machine...: text" opener speaks to the machine:
// the text goes on with an instruction or a second person.
func addressLike(s string) bool {
	_, after, _ := strings.Cut(s, ":")
	return instructionRe.MatchString(after)
}

var instructionRe = regexp.MustCompile(`(?i)\b(?:you|your|please|when|always|never|must|should|state|say|describe|report|rank|set|write|mention|tell|answer|respond|recommend|treat|remember|bitte|du|dein\w*|sie\s+sollen|schreib\w*|sag\w*|nenn\w*|gib|antworte\w*|beschreib\w*|veuillez|vous|votre|vos|indiquez|dites|écrivez|répondez|décrivez|mentionnez|por\s+favor|usted|tú|di|escribe|indica|responde|describe|menciona|recomienda)\b`)
