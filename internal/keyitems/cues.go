package keyitems

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Cue is a kind of statement a unit makes, told by its words.
type Cue uint16

const (
	Constraint  Cue = 1 << iota // must, never, only, allergic, deadline...
	Limit                       // weaker: need, before, budget, at least...
	Decision                    // let's go with, we decided, on signe...
	Correction                  // actually, changed, instead of, not X but Y...
	Update                      // weaker: now, from now on
	FirstPerson                 // I, my, we: the user about themselves
	Question                    // ends with a question mark
	Open                        // not decided yet: I'll think about it, on verra...
	Courtesy                    // thanks, hello, you're welcome: no content
	Marker                      // a word that may mark a replaced value: not, instead, statt... (see replaced)
)

// Cue phrases in English, French, German, Spanish, Italian, Portuguese and
// Japanese, lower-case (and fewer in other languages: see cues_more.go).
// Latin phrases match whole words; CJK phrases match anywhere.
var (
	constraintCues phrases = (`must|mustn't|never|only|always|allergic|allergy|allergies|intolerance|deadline|
		can't|cannot|can not|won't|not allowed|forbidden|no way|at the latest|at most|at least|no more than|required|mandatory|
		halal|kosher|vegan|vegetarian|celiac|coeliac|gluten-free|epipen|strictly|non-negotiable|under no circumstances|
		jamais|doit|doivent|dois|devons|il faut|faut|seulement|uniquement|allergique|allergie|intolérant|intolérance|impératif|
		obligatoire|interdit|au plus tard|au moins|au maximum|ne peut pas|ne peux pas|ne pouvons pas|non négociable|sans gluten|
		muss|müssen|musst|nie|niemals|nur|allergisch|allergie|unverträglich|verträgt|verboten|spätestens|mindestens|höchstens|
		darf nicht|dürfen nicht|kann nicht|auf keinen fall|unbedingt|pflicht|
		nunca|debe|deben|debo|tiene que|tengo que|tenemos que|hay que|solo|sólo|únicamente|alérgico|alérgica|alergia|intolerante|
		obligatorio|prohibido|como máximo|como mínimo|al menos|sí o sí|no se puede|no puedo|no podemos|sin gluten|
		deve|devono|devo|dobbiamo|soltanto|solamente|allergico|allergica|allergia|celiaco|celiaca|intollerante|obbligatorio|
		vietato|al massimo|almeno|non può|non possiamo|non posso|senza glutine|
		nunca|só|apenas|somente|tem de|tem que|temos de|temos que|tenho de|tenho que|obrigatório|obrigatória|proibido|alérgico|alérgica|
		alergia|intolerante|no máximo|pelo menos|não posso|não podemos|não pode|sem glúten|de maneira nenhuma|
		必ず|絶対|だけ|しか|できない|できません|ダメ|だめ|禁止|いけない|ません|ない|不可|必須` + "|" + constraintMore)
	limitCues phrases = (`need|needs|have to|has to|had to|before|until|budget|max|maximum|minimum|important|limit|not|no|don't|doesn't|
		besoin|avant|jusqu'à|budget|maximum|minimum|important|pas|ne|
		brauche|brauchen|vor|bis|budget|maximal|wichtig|nicht|kein|keine|keinen|
		necesito|necesitamos|antes|hasta|presupuesto|máximo|mínimo|importante|no|
		bisogno|prima|entro|fino|budget|massimo|minimo|importante|non|niente|
		preciso|precisamos|antes|até|orçamento|máximo|mínimo|importante|não|nada de|
		必要|まで|予算|以内|大事|重要|大切`)
	decisionCues phrases = (`let's go with|go with|going with|we'll go|decided|we chose|i chose|we've chosen|we picked|i'll take|we'll take|
		we're submitting|signed|booked|approved|confirmed|we'll use|i'll use|let's do|we'll do|we choose|final decision|
		on signe|on prend|on part sur|j'ai choisi|on a choisi|nous avons choisi|décidé|retenu|on garde|je vais demander|c'est décidé|
		entschieden|ich nehme|wir nehmen|nehmen wir|machen wir|das mache ich|gebucht|beschlossen|
		decidido|decidimos|nos quedamos con|elegimos|vamos con|hemos elegido|hemos decidido|me quedo con|
		abbiamo scelto|ho scelto|abbiamo deciso|ho deciso|deciso|confermato|prenotato|
		decidimos|escolhemos|ficamos com|fico com|vamos com|vamos ficar com|decidi|escolhi|está decidido|
		にします|にしたい|決めました|決定|予約しました|にしました` + "|" + decisionMore)
	correctionCues phrases = (`actually|correction|sorry, i|i meant|mistyped|typo|changed|change of plan|moved|
		switched|no longer|anymore|instead|rather than|not anymore|turns out|
		en fait|finalement|au lieu|changement|corrige|correction|
		eigentlich|stattdessen|statt|anstatt|verschoben|geändert|korrektur|sondern|
		en realidad|al final|en vez de|en lugar de|ya no|cambiado|corrijo|sino|
		in realtà|invece|anziché|non più|cambiato|
		afinal|em vez de|já não|passou para|mudou para|mudámos|corrigir|
		変更|変わり|変わった|ではなく|じゃなく|訂正` + "|" + correctionMore)
	updateCues phrases = (`now|from now on|no more|agora|a partir de agora|
		désormais|maintenant|dorénavant|
		jetzt|ab jetzt|nunmehr|
		ahora|a partir de ahora|
		adesso|ora|d'ora in poi|
		今は|これから`)
	firstPersonCues phrases = (`i|i'm|i've|i'll|my|me|we|we're|we've|our|us|
		je|j'ai|mon|ma|mes|nous|notre|nos|
		ich|mein|meine|meinen|mir|mich|wir|unser|unsere|
		yo|mi|mis|me|nosotros|nuestro|nuestra|tengo|vivo|
		io|mio|mia|miei|mie|noi|nostro|ho|sono|
		eu|meu|minha|meus|minhas|nós|nosso|nossa|
		私|僕|俺|夫|妻|母|父|娘|息子|家族|うち`)
	openCues phrases = (`i'll think about|think about it|let me think|not sure yet|we'll see|to be decided|tbd|still deciding|
		i'll decide|i'll look into|later|
		je vais réfléchir|j'y réfléchis|on verra|pas encore décidé|plus tard|
		ich überlege|mal sehen|noch nicht entschieden|später|
		lo pienso|lo pensaré|ya veremos|todavía no|más tarde|
		ci penso|ci pensiamo|vedremo|non ancora|più tardi|
		vou pensar|depois vejo|ainda não sei|mais tarde|
		確認します|検討|考えます`)
	courtesyCues phrases = (`thanks|thank you|you're welcome|hello|hi|great|perfect|ok|okay|glad|happy to help|
		merci|bonjour|avec plaisir|parfait|super|
		danke|hallo|gern|gerne|perfekt|
		gracias|hola|de nada|perfecto|vale|
		grazie|ciao|prego|perfetto|
		obrigado|obrigada|olá|de nada|ótimo|perfeito|
		ありがとう|どういたしまして|こんにちは`)
)

// cueSets are the cue phrases by cue.
var cueSets = map[Cue]phrases{
	Constraint: constraintCues, Limit: limitCues, Decision: decisionCues, Correction: correctionCues,
	Update: updateCues, FirstPerson: firstPersonCues, Open: openCues, Courtesy: courtesyCues,
}

// lex holds every cue phrase.
var lex = newLexicon(cueSets)

// Phrases returns every cue phrase, each once, for audits of the cue lists
// (see WithoutPhrase).
func Phrases() []string {
	seen := map[string]bool{}
	var out []string
	for _, ps := range cueSets {
		for _, p := range strings.Split(string(ps), "|") {
			if p = strings.TrimSpace(p); p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// WithoutPhrase makes the cue lexicon lack phrase until restore is
// called: an ablation, for an audit of what each phrase does to a
// benchmark. It is not safe to call while cues are read concurrently.
func WithoutPhrase(phrase string) (restore func()) {
	sets := make(map[Cue]phrases, len(cueSets))
	for c, ps := range cueSets {
		var kept []string
		for _, p := range strings.Split(string(ps), "|") {
			if strings.TrimSpace(p) != phrase {
				kept = append(kept, p)
			}
		}
		sets[c] = phrases(strings.Join(kept, "|"))
	}
	old := lex
	lex = newLexicon(sets)
	return func() { lex = old }
}

// Stop holds words too common to tell units apart, in the cue languages.
var Stop = WordSet(`a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it
	its me my no not of on or our she so that the their them then there these they this to too us was we were what when where
	which who why will with would you your yes ok okay just also very about some any all can't don't i'm it's that's there's
	let please thanks thank sure here one two get got make made want like know think really well more most much many even
	still now new good great need should shall may might must each other than only into over such own same few both being
	le la les un une des du de à et est en que qui dans pour pas par sur au aux ce cette ces il elle ils elles nous vous je tu
	on se sa son ses leur leurs mais ou donc ni car ne plus avec sans être avoir fait faire comme tout tous bien très aussi
	der die das ein eine einen einem einer und ist im in zu den dem des mit von für auf nicht sich es ich du er sie wir ihr
	auch an als wie aber oder noch nach bei aus um so nur wenn dann schon sehr mehr kann muss hat haben sind war wird werden
	el la los las un una unos unas y es en que de del por con para se lo le les su sus al como más pero muy ya también
	il lo gli i una uno e è di da che per con non si mi ti ci al del della dei delle nel nella sono ho ha come ma più anche
	o os as um uma é em que de do da dos das para com não se`)

// A lexicon finds cue phrases in a text in one pass over its words.
type lexicon struct {
	single map[string]Cue     // one-word phrases
	multi  map[string][]entry // phrases of several words, by their first word
	cjk    []entry            // phrases in a script without spaces, matched anywhere
}

type entry struct {
	words []string // after the first
	text  string   // CJK phrases
	c     Cue
}

// phrases is a list of phrases separated by "|", lower-case.
type phrases string

func newLexicon(sets map[Cue]phrases) lexicon {
	l := lexicon{single: map[string]Cue{}, multi: map[string][]entry{}}
	for c, ps := range sets {
		for _, p := range strings.Split(string(ps), "|") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if IsCJK([]rune(p)[0]) {
				l.cjk = append(l.cjk, entry{text: p, c: c})
				continue
			}
			ws := Normalized(p)
			if len(ws) == 1 {
				l.single[ws[0]] |= c
				continue
			}
			l.multi[ws[0]] = append(l.multi[ws[0]], entry{words: ws[1:], c: c})
		}
	}
	return l
}

// Normalized returns the words of s as cue phrases match them: lower case,
// punctuation dropped except apostrophes and hyphens inside words, and
// commas as words of their own.
func Normalized(s string) []string {
	words := make([]string, 0, len(s)/5)
	start := -1
	lower := strings.ToLower(s)
	curly := strings.Contains(lower, "’")
	for i, r := range lower {
		word := unicode.IsLetter(r) || unicode.IsNumber(r) || r == '\'' || r == '-' || r == '’'
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			words = append(words, straight(lower[start:i], curly))
			start = -1
		}
		if r == ',' {
			words = append(words, ",")
		}
	}
	if start >= 0 {
		words = append(words, straight(lower[start:], curly))
	}
	return words
}

// straight turns curly apostrophes into straight ones, if s may have any.
func straight(s string, curly bool) string {
	if !curly {
		return s
	}
	return strings.ReplaceAll(s, "’", "'")
}

// Cues returns the kinds of statement text makes.
func Cues(text string) Cue {
	words := Normalized(text)
	var c Cue
	for i, w := range words {
		c |= lex.single[w]
		for _, e := range lex.multi[w] {
			if i+len(e.words) < len(words) && equalWords(words[i+1:i+1+len(e.words)], e.words) {
				c |= e.c
			}
		}
	}
	if HasCJK(text) {
		n := strings.Join(words, " ")
		for _, e := range lex.cjk {
			if strings.Contains(n, e.text) {
				c |= e.c
			}
		}
		for _, m := range cjkMarkers {
			if strings.Contains(n, m) {
				c |= Marker
			}
		}
	}
	for _, w := range words {
		if markerWords[w] {
			c |= Marker
			break
		}
	}
	if c&FirstPerson == 0 {
		for _, w := range words {
			if firstPersonVerb(w) {
				c |= FirstPerson
				break
			}
		}
	}
	if t := strings.TrimRight(text, " )'\""); strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") {
		c |= Question
	}
	return c
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func HasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && IsCJK(r) {
			return true
		}
	}
	return false
}

// firstPersonVerb reports whether w is a verb in the first person plural
// of a language that drops its pronouns: "hemos", "queremos", "vivimos",
// "abbiamo", "siamo".
func firstPersonVerb(w string) bool {
	if utf8.RuneCountInString(w) < 5 {
		return false
	}
	for _, e := range []string{"amos", "emos", "imos", "iamo"} {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

// Markers of an explicit correction: what follows them (or, for the CJK
// ones, what precedes them) is the value that is no longer true. "strong"
// markers correct on their own; "weak" ones (not, pas, nicht...) only in a
// contrast: "Y, not X" or "not X but Y".
var (
	strongMarkers = []string{"instead of", "rather than", "no longer", "au lieu de", "au lieu du", "au lieu des",
		"plutôt que", "et non", "et non plus", "statt", "anstatt", "anstelle von", "en vez de", "en lugar de", "ya no",
		"invece di", "invece del", "invece della", "invece dei", "invece delle", "anziché", "non più", "em vez de"}
	weakMarkers   = []string{"not", "pas", "nicht", "kein", "keine", "keinen", "no", "non", "não"}
	contrastWords = WordSet(`but mais sondern sino ma mas`)
	cjkMarkers    = []string{"ではなく", "じゃなく", "ではありません", "而不是", "不是"}
	// strongMarkerWords are the words of each of strongMarkers.
	strongMarkerWords = func() [][]string {
		out := make([][]string, len(strongMarkers))
		for i, m := range strongMarkers {
			out[i] = strings.Fields(m)
		}
		return out
	}()
	// markerWords start a marker.
	markerWords = func() map[string]bool {
		m := map[string]bool{}
		for _, p := range append(strongMarkers, weakMarkers...) {
			m[strings.Fields(p)[0]] = true
		}
		return m
	}()
	// skipWords follow a marker before the value itself.
	skipWords = WordSet(`to the a an le la les l' du de des d' der die das dem den des el los las il lo gli i al à son es more
		mehr più más am im on in`)
	// endWords end the replaced value.
	endWords = WordSet(`but mais sondern sino ma mas and et und y e anymore plus mehr`)
)

// Replaced returns the values that text says are no longer true, such as
// "BW-58231" in "The order is BW-58213, not BW-58231", in their original
// case, and the rest of the text: what is true now.
func Replaced(text string) (old []string, rest string) {
	toks := clauseTokens(text)
	lower := make([]string, len(toks))
	for i, t := range toks {
		lower[i] = strings.ToLower(t)
	}
	drop := make([]bool, len(toks))
	// take returns the replaced value that starts at toks[j], marking it
	// and the marker before it (from i) as dropped from the rest.
	take := func(i, j int) string {
		for j < len(toks) && skipWords[lower[j]] {
			j++
		}
		k := j
		for k < len(toks) && k-j < 4 && lower[k] != "," && !endWords[lower[k]] {
			k++
		}
		if k == j {
			return ""
		}
		for x := i; x < k; x++ {
			drop[x] = true
		}
		return strings.Join(toks[j:k], " ")
	}
	seen := map[string]bool{}
	add := func(x string) {
		if x != "" && !seen[x] {
			seen[x] = true
			old = append(old, x)
		}
	}
	for i := range toks {
		if markerWords[lower[i]] {
			for _, m := range strongMarkerWords {
				if hasWords(lower, i, m) {
					add(take(i, i+len(m)))
				}
			}
		}
		for _, m := range weakMarkers {
			if lower[i] != m || i+1 >= len(toks) {
				continue
			}
			// "Y, not X", or values on both sides: "€24 not €22".
			contrast := i > 0 && (lower[i-1] == "," || HasDigit(lower[i-1]) && i+1 < len(toks) && HasDigit(lower[i+1]))
			// "not X but Y", "kein X, sondern Y": a contrast word in the
			// clause, or just after its comma.
			for k, commas := i+1, 0; !contrast && k < len(toks) && k <= i+8; k++ {
				if lower[k] == "," {
					if commas++; commas > 1 {
						break
					}
					continue
				}
				contrast = contrastWords[lower[k]]
			}
			if contrast {
				add(take(i, i+1))
			}
		}
	}
	var kept []string
	for i, t := range toks {
		if !drop[i] {
			kept = append(kept, t)
		}
	}
	rest = strings.Join(kept, " ")
	for _, m := range cjkMarkers {
		if i := strings.Index(rest, m); i > 0 {
			before := rest[:i]
			start := 0
			if j := strings.LastIndexAny(before, " 、，,。"); j >= 0 {
				_, n := utf8.DecodeRuneInString(before[j:])
				start = j + n
			}
			x := strings.TrimSpace(before[start:])
			if x != "" {
				add(x)
				rest = strings.Replace(rest, x+m, " ", 1)
			}
		}
	}
	return old, rest
}

// clauseTokens splits text at spaces, with surrounding punctuation removed
// and commas as tokens of their own; "$150", "BW-58231" and "k€" stay whole.
func clauseTokens(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		f = strings.TrimLeft(f, `("'«„“‘¿¡*`)
		comma := false
		for f != "" {
			r, n := utf8.DecodeLastRuneInString(f)
			if r == ',' {
				comma = true
			} else if !strings.ContainsRune(`.!?;:)"'»”’*`, r) {
				break
			}
			f = f[:len(f)-n]
		}
		if f != "" {
			out = append(out, f)
		}
		if comma {
			out = append(out, ",")
		}
	}
	return out
}

// hasWords reports whether the words m of a phrase start at lower[i].
func hasWords(lower []string, i int, m []string) bool {
	for _, w := range m {
		if i >= len(lower) || lower[i] != w {
			return false
		}
		i++
	}
	return true
}
