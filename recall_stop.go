package recap

import "strings"

// Function words of the languages with the most speakers among those
// written with spaces (English, German, French, Spanish, Italian,
// Portuguese, Dutch), folded as terms are (lower case, Latin diacritics
// removed). Their matches weigh little where an excerpt is cut from a
// message (see excerpts): they are everywhere in it. They still rank
// messages, by their inverse document frequency like any term, since
// pronouns and question words match the questions and answers the query
// echoes. Words that are also common content words in English ("war",
// "hat", "man", "son", "era", "bin", "den") are left out.
var stopWords = func() map[string]bool {
	m := make(map[string]bool, 700)
	for _, list := range []string{
		// English
		`a about above after again all also am an and any are as at be because been before being below between both but by
		can could d did do does doing done down during each few for from further had has have having he her here hers herself
		him himself his how i if in into is it its itself just ll m me more most much my myself no nor not now of off on once
		only or other our ours out over own re s same she should so some such t than that the their theirs them then there
		these they this those through to too under until up ve very was we were what when where which while who whom whose why
		will with would you your yours yourself`,
		// German
		`aber alle allem allen aller alles als also am an andere anderen auch auf aus bei bist bis da damit dann das dass dein
		deine dem der des dessen die dies diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer eines
		er es etwas euch euer fur gegen gewesen hab habe haben hatte hier ich ihm ihn ihnen ihr ihre im ist ja jede jedem jeden
		jeder jedes jetzt kann kein keine konnen mein meine mich mir mit muss mussen nach nicht nichts noch nun nur ob oder
		ohne sehr sein seine sich sie sind soll sollen sollte sondern um und uns unser unter vom von vor waren warum was weil
		welche welchem welchen welcher welches wann wenn wer werde werden wie wieder wir wird wo wollen wurde zu zum zur uber`,
		// French
		`au aux avec ce ces cette celle celui comme comment combien dans de des du elle elles en est et etre eu il ils je la
		le les leur leurs lui ma mais me meme mes moi mon ne nos notre nous on ou par pas pour pourquoi qu quand que quel quelle
		quelles quels qui quoi sa sans se ses si sont suis sur ta te tes toi ton tu un une vos votre vous y ai as avait avais
		avez avons ont fait plus tres bien c j l n`,
		// Spanish
		`al algo como con cual cuales cuando cuanto cuanta del donde el ella ellas ellos entre es esa ese eso esta estas este
		esto estos fue ha han hay las lo los mas mi mis muy nada ni nos nosotros para pero por porque que quien ser sin sobre
		su sus tengo tiene tu tus una uno unos ya yo hemos habia`,
		// Italian
		`ad alla alle allo ai agli che chi ci cosa da dal dalla dei della delle dello di ed gli hai hanno ho il io lei li loro
		ma mia mio nei nel nella noi non per piu quale quali quanto questa queste questi questo sia siamo sono sua sue suo
		suoi ti tua tuo vi voi abbiamo avete`,
		// Portuguese
		`ao aos com da das do dos ela ele eles em eu foi isso isto ja lhe meu minha muito na nao nas no os pela pelo qual quem
		sem seu sao tem um uma voce voces`,
		// Dutch
		`het een van ik je dat niet op wat zijn voor met hij zo maar er aan om ook nog bij wij ze ben heb hoe wie waar
		wanneer welke`,
	} {
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
	}
	return m
}()
