package crawl

// categoryKeywords are words and phrases, in English, German, French and
// Spanish, that say a product does what a category covers. They extend a
// category's own name and description, keyed by the folded category name
// (so a directory with other names still gets its names and descriptions).
// A trailing "*" matches any word starting so ("physiotherap*" matches
// "Physiotherapeuten"); words otherwise match with a plural "s".
// Strong terms (weight 3) name the category's subject on their own; weak
// ones (weight 2) only add to it.
var categoryKeywords = map[string]struct{ strong, weak []string }{
	"ai & machine learning": {
		strong: []string{"machine learning", "artificial intelligence", "künstliche intelligenz", "intelligence artificielle", "inteligencia artificial",
			"language model*", "llm*", "generative ai", "genai", "neural network*", "computer vision", "ai model*", "deep learning", "sprachmodell*",
			"modèles de langage", "modelos de lenguaje", "ml infrastructure", "fine-tuning", "ai agent*", "ki-agent*"},
		weak: []string{"ai-powered", "ai powered", "ki-gestützt*", "ki-basiert*", "ai assistant*", "ki-assistent*", "assistant ia", "asistente de ia", "gpt", "chatbot*", "embedding*", "prompt*", "ia générative", "ia generativa", "generative ki"},
	},
	"analytics": {
		strong: []string{"analytics", "business intelligence", "product analytics", "web analytics", "datenanalyse",
			"analítica", "análisis de datos", "kpi*", "cohort*", "funnel*", "auswertung*", "sentiment analysis", "data visualization", "data visualisation"},
		weak: []string{"dashboard*", "tableau de bord", "reporting", "metrics", "insights", "statistik*", "statistique*", "estadística*", "analyse*", "analyze", "analyse", "report*", "berichte", "informes", "trends"},
	},
	"customer support": {
		strong: []string{"help desk", "helpdesk", "ticketing", "support ticket*", "shared inbox", "live chat", "knowledge base", "customer service", "customer support",
			"kundenservice", "kundensupport", "kundendienst", "service client", "support client", "atención al cliente", "soporte al cliente", "base de connaissances",
			"wissensdatenbank", "base de conocimiento*", "self-service portal"},
		weak: []string{"tickets", "support team*", "agents", "inbox"},
	},
	"developer tools": {
		strong: []string{"developer*", "sdk*", "command-line", "command line", "continuous integration", "ci/cd", "ci pipeline*", "build pipeline*", "code review", "webhook*",
			"devops", "kubernetes", "entwickler*", "développeur*", "desarrollador*", "pull request*", "git", "github", "gitlab", "rest api", "graphql", "elt", "etl",
			"data pipeline*", "connectors", "infrastructure as code", "test suite*", "open-source library", "cli"},
		weak: []string{"api", "apis", "terminal", "repository", "repositories", "engineers", "engineering team*", "deploy*", "builds"},
	},
	"design": {
		strong: []string{"figma", "prototyp*", "mockup*", "wireframe*", "brand asset*", "ui design", "graphic design", "grafikdesign", "design tool*", "design system*",
			"diseño gráfico", "maquette*", "illustration*", "icon set*", "brand kit*", "brand library", "templates for social"},
		weak: []string{"designer*", "templates", "vorlagen", "modèles", "plantillas", "logo*", "fonts", "typograph*", "branding", "graphic*", "diseño", "gestaltung"},
	},
	"e-commerce": {
		strong: []string{"online shop*", "online store*", "e-commerce", "ecommerce", "shopify", "woocommerce", "checkout", "marketplace*", "merchant*", "onlineshop*",
			"webshop*", "online-händler*", "boutique en ligne", "boutiques en ligne", "tienda online", "tiendas online", "tienda en línea", "comercio electrónico",
			"commerce en ligne", "storefront*", "inventory", "lagerverwaltung", "lagerbestand*", "bestandsabgleich", "gestion des stocks", "gestión de inventario",
			"meal kit*", "kochbox*", "box repas", "caja de recetas", "order online", "online bestellen", "commander en ligne", "pedir online", "retail*"},
		weak: []string{"händler*", "commerçant*", "comercio*", "shop", "shops", "delivered to your door", "free shipping", "versandkostenfrei", "livraison offerte", "envío gratis", "orders", "bestellungen", "commandes", "pedidos"},
	},
	"education": {
		strong: []string{"tutor", "tutors", "tutoring", "tutoría*", "nachhilfe", "language learning", "learn languages", "learn a language", "e-learning", "online course*", "classroom*",
			"students", "schüler*", "élève*", "estudiante*", "alumno*", "teachers", "lehrer*", "enseignant*", "profesores", "lern-app*", "lernplattform*", "lernen",
			"apprendre", "apprentissage", "aprender", "aprendizaje", "vocabulary", "vokabel*", "grammar", "grammatik", "homework", "hausaufgaben", "exam prep*",
			"prüfungsvorbereitung", "klassenarbeit*", "idiomas", "langues étrangères", "sprachkurs*", "cours de langue*", "cours en ligne", "curso*", "lessons", "schools", "schulen", "écoles", "escuelas"},
		weak: []string{"lesson", "learning", "kurs*", "school", "schule", "école", "escuela", "teacher", "student", "exam*", "prüfung*", "examen*", "mathe*", "math", "maths", "study", "studying"},
	},
	"energy & climate": {
		strong: []string{"energy", "energie*", "énergie*", "energía", "solar*", "photovolta*", "carbon", "co2", "co₂", "emission*", "climate", "klima*", "renewable*",
			"heat pump*", "wärmepumpe*", "electricity", "stromverbrauch", "kwh", "consommation énergétique", "électricité", "electricidad", "ev charging", "charging station*",
			"ladestation*", "décret tertiaire", "energy efficiency", "efficacité énergétique", "eficiencia energética", "surconsommation"},
		weak: []string{"sustainab*", "nachhaltig*", "durable", "sostenible", "strom", "consumption", "verbrauch", "consommation", "consumo", "capteurs", "meters"},
	},
	"finance": {
		strong: []string{"accounting", "bookkeeping", "invoic*", "payroll", "buchhaltung", "rechnung*", "finanzen", "comptabilité", "factur*", "contabilidad",
			"tax return*", "steuererklärung", "déclaration d'impôt*", "declaración de la renta", "expense*", "spesen*", "notes de frais", "gastos", "vat return*",
			"umsatzsteuer*", "bank feed*", "banking", "personal finance", "budget*", "accounts payable", "receipt*", "belege", "reconcil*", "profit and loss", "cash flow"},
		weak: []string{"payment*", "paiement*", "pagos", "zahlung*", "bank", "banks", "banken", "tax", "taxes", "steuer*", "impôt*", "impuesto*", "money", "geld", "argent", "dinero", "finance", "finanz*", "vat"},
	},
	"hardware": {
		strong: []string{"robot arm*", "robotic*", "robots", "gadget*", "electronics", "3d printer*", "wearable*", "drone*", "hardware", "microcontroller*",
			"six-axis", "desktop robot*", "mechanical keyboard*"},
		weak: []string{"robot", "device*", "gerät*", "appareil*", "dispositivo*", "sensor*", "capteur*", "battery", "akku", "batterie", "batería", "firmware", "motor*", "ships with", "in the box"},
	},
	"health & fitness": {
		strong: []string{"fitness", "workout*", "running", "runner*", "training plan*", "trainingsplan*", "gym", "yoga", "meditation", "sleep", "nutrition",
			"meal plan*", "diet*", "calorie*", "wellbeing", "well-being", "wellness", "laufen", "läufer*", "lauftraining", "course à pied", "entraînement*", "entrenamiento*",
			"correr", "corredor*", "recipes", "rezepte", "recettes", "recetas", "healthy eating", "gesunde ernährung", "ernährung", "mindfulness", "marathon*",
			"plans d'entraînement", "planes de entrenamiento", "menus personnalisés", "mental health"},
		weak: []string{"health", "gesundheit", "santé", "salud", "sport*", "deporte*", "coach*", "trainer", "steps", "healthy", "gesund", "sain*", "saludable", "ingrédients", "ingredients", "zutaten", "ingredientes", "menus", "menüs"},
	},
	"healthcare": {
		strong: []string{"clinic*", "patient*", "physiotherap*", "therapy practice*", "medical", "doctor*", "practice management", "arztpraxis*", "ärzt*", "klinik*",
			"physio*", "médical*", "médecin*", "kiné*", "clínica*", "paciente*", "fisioterap*", "médico*", "veterinar*", "vet practice*", "vet clinic*", "tierarzt*",
			"tierärzt*", "vétérinaire*", "hospital*", "krankenhaus*", "healthcare", "telemedicine", "telehealth", "dental", "zahnarzt*", "dentist*", "pharmac*",
			"praxissoftware", "therapeut*", "thérapeute*", "terapeuta*", "krankenkasse*", "consultorio*", "cabinet médical", "cabinets médicaux", "gesundheitswesen"},
		weak: []string{"praxis", "praxen", "therap*", "terminbuchung", "appointments", "rendez-vous", "citas", "cabinet*", "practice", "practices", "treatment*", "behandlung*"},
	},
	"legal": {
		strong: []string{"contract*", "legal", "law firm*", "lawyer*", "attorney*", "vertrag*", "verträge", "rechtsanw*", "kanzlei*", "juridique*", "contrat*", "avocat*",
			"contrato*", "abogad*", "jurídic*", "nda", "ndas", "clause*", "legal team*", "in-house counsel", "legal tech", "legaltech", "redline*"},
		weak: []string{"compliance", "law", "recht", "droit", "derecho", "playbook*", "agreements", "signature*", "e-signature"},
	},
	"logistics": {
		strong: []string{"fleet*", "route planning", "route optimi*", "routes", "shipping", "shipment*", "warehouse*", "logistic*", "logistik*", "logistique", "logística",
			"courier*", "freight", "carrier*", "parcel*", "fuhrpark*", "tourenplanung", "versand*", "spedition*", "flotte*", "expédition*", "entrepôt*", "envío*", "flota*",
			"almacén", "last mile", "last-mile", "dispatch*", "drivers", "fahrer", "chauffeurs", "conductores", "proof of delivery", "shipping labels", "tracking numbers",
			"parcel tracking", "sendungsverfolgung"},
		weak: []string{"delivery", "deliveries", "lieferung*", "livraison*", "entrega*", "transport*", "mileage", "vans", "trucks", "labels"},
	},
	"marketing": {
		strong: []string{"email marketing", "newsletter*", "campaign*", "seo", "social media", "advertis*", "marketing", "lead generation", "landing page*", "kampagne*",
			"werbung", "campagne*", "publicité", "campaña*", "publicidad", "influencer*", "backlink*", "abandoned-cart", "abandoned cart", "email flows", "marketing automation",
			"open rates", "e-mail-marketing", "emailing"},
		weak: []string{"audience*", "subscribers", "abonnenten", "abonnés", "suscriptores", "ads", "growth", "brand awareness", "segments", "leads", "conversion*"},
	},
	"pets": {
		strong: []string{"pet", "pets", "pet owner*", "pet care", "dog", "dogs", "cats", "puppy", "puppies", "kitten*", "hund", "hunde*", "katze*", "haustier*",
			"tierhalter*", "chien*", "chiot*", "chaton*", "animaux de compagnie", "mascota*", "perro*", "gato*", "vet", "vets", "vet visit*", "dog walk*", "hundebesitzer*"},
		weak: []string{"cat", "animal*", "tier", "tiere", "animaux", "vaccination*", "impfung*", "leash", "grooming"},
	},
	"productivity": {
		strong: []string{"time tracking", "zeiterfassung", "note-taking", "notes app", "to-do*", "todo*", "calendar*", "kalender*", "productivity", "produktivität",
			"productivité", "productividad", "habit tracker*", "habits", "focus timer", "pomodoro", "timesheet*", "stundenzettel*", "meeting notes", "prise de notes", "notizen",
			"meal planning", "menu planning", "wochenplan*", "planificateur", "planificador", "shift planning", "shift planner", "schichtplan*", "dienstplan*",
			"employee scheduling", "staff scheduling", "rota*", "planning des équipes", "cuadrante*", "turnos", "personal organi*", "task list*", "shopping list*",
			"liste de courses", "einkaufsliste*", "lista de la compra"},
		weak: []string{"notes", "tasks", "aufgaben", "tâches", "tareas", "schedule*", "scheduling", "planner", "planning", "focus", "reminders", "erinnerungen", "timer"},
	},
	"project management": {
		strong: []string{"project management", "projektmanagement", "gestion de projet*", "gestión de proyectos", "kanban", "roadmap*", "sprint*", "gantt", "team planning",
			"task management", "aufgabenverwaltung", "gestion des tâches", "gestión de tareas", "shift planning", "schichtplan*", "dienstplan*", "employee scheduling",
			"staff scheduling", "personaleinsatzplanung", "planning des équipes", "cuadrante*", "turnos", "rota*", "milestones", "backlog*"},
		weak: []string{"projects", "projekte", "projets", "proyectos", "tasks", "aufgaben", "tâches", "tareas", "workload", "deadlines", "boards", "shifts", "schichten"},
	},
	"remote work": {
		strong: []string{"remote team*", "remote work*", "distributed team*", "async standup*", "asynchronous", "standup*", "stand-up*", "virtual office*", "home office",
			"homeoffice", "télétravail", "teletrabajo", "remote-first", "work from anywhere", "hybrid work", "remote hiring", "across time zones", "time zones"},
		weak: []string{"remote", "async", "distributed", "hybrid"},
	},
	"reviews & loyalty": {
		strong: []string{"loyalty", "reward*", "stamp card*", "fidélité", "treueprogramm*", "treuekarte*", "bonusprogramm*", "fidelización", "fidelidad", "cashback",
			"programme de fidélité", "cartes de fidélité", "carte de fidélité", "tarjeta de fidelidad", "customer reviews", "review management", "kundenbewertungen",
			"avis clients", "reseñas", "google reviews", "ratings and reviews", "referral program*"},
		weak: []string{"reviews", "ratings", "bewertungen", "avis", "points", "punkte", "puntos", "stamps", "stempel*", "recompensa*", "récompense*"},
	},
	"security": {
		strong: []string{"vulnerabilit*", "pentest*", "penetration test*", "access control", "sso", "single sign-on", "encryption", "password manager*", "phishing", "malware",
			"firewall*", "zero trust", "siem", "threat*", "policy checks", "security scanning", "sicherheitslücke*", "schwachstelle*", "sécurité", "seguridad",
			"cybersecurity", "cyber security", "soc 2 compliance", "secrets scanning", "misconfiguration*", "cve*", "intrusion", "2fa", "mfa", "identity management"},
		weak: []string{"security", "privacy", "secure", "sicher", "sécurisé*", "seguro", "policies", "policy", "compliance checks", "audit*", "permissions", "passwords", "datenschutz"},
	},
	"team communication": {
		strong: []string{"team chat", "messaging", "video call*", "video conferenc*", "videokonferenz*", "visioconférence*", "videoconferencia*", "internal communication*",
			"interne kommunikation", "communication interne", "comunicación interna", "intranet", "messenger", "team messaging", "push-to-talk", "walkie-talkie*",
			"mensajería", "huddle*"},
		weak: []string{"chat", "channels", "threads", "meetings", "calls", "kommunikation", "communication", "comunicación", "announcements", "voice messages"},
	},
	"sales & crm": {
		strong: []string{"crm", "sales pipeline*", "prospecting", "lead management", "sales team*", "deal*", "vertrieb*", "verkaufsteam*", "prospection", "ventas", "cold email*", "outbound", "sales engagement"},
		weak:   []string{"sales", "leads", "contacts", "kontakte", "pipeline"},
	},
	"no-code": {
		strong: []string{"no-code", "no code", "nocode", "low-code", "without code", "ohne code", "sans code", "sin código", "website builder*", "app builder*", "drag-and-drop builder*", "automation*"},
		weak:   []string{"builder", "drag-and-drop", "visual editor"},
	},
}

// categoryAliases map other spellings of a category name onto a key of
// categoryKeywords.
var categoryAliases = map[string]string{
	"security & privacy": "security", "ai": "ai & machine learning", "artificial intelligence": "ai & machine learning",
	"ecommerce": "e-commerce", "health and fitness": "health & fitness", "health": "health & fitness", "fitness": "health & fitness",
	"customer service": "customer support", "support": "customer support", "devtools": "developer tools", "communication": "team communication",
	"sales": "sales & crm", "crm": "sales & crm", "energy": "energy & climate", "climate": "energy & climate", "reviews": "reviews & loyalty",
	"loyalty": "reviews & loyalty", "nocode": "no-code", "no code": "no-code", "medical": "healthcare", "health care": "healthcare",
	"ai and machine learning": "ai & machine learning", "finance & accounting": "finance", "fintech": "finance", "edtech": "education",
	"pet care": "pets", "project-management": "project management",
}

// keywordsFor returns the keyword lists of a category by its name.
func keywordsFor(name string) (strong, weak []string) {
	key := foldText(name)
	if a, ok := categoryAliases[key]; ok {
		key = a
	}
	k := categoryKeywords[key]
	return k.strong, k.weak
}
