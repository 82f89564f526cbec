package keyitems

// Cue phrases in other languages: Dutch, Swedish, Danish and Norwegian,
// Polish, Russian, Ukrainian, Czech, Turkish, Arabic, Persian, Hebrew,
// Greek, Hungarian, Romanian, Finnish, Indonesian, Vietnamese, Hindi,
// Chinese and Korean; fewer than the main lists', the common words for
// what must or must not be, an allergy or a diet, a deadline, a choice
// made and a value corrected. They come from the languages, not from
// benchmark chats (the chats in these languages are measured, never
// searched for cues), less the words that are common words of a language
// the main lists cover ("minimal", "vain", Finnish "kun"). Chinese and Korean phrases match anywhere, as
// Japanese ones do: only phrases of two characters or more.

const constraintMore = `
	moet|moeten|nooit|alleen|allergisch|allergie|coeliakie|glutenvrij|uiterlijk|verboden|niet toegestaan|minstens|hoogstens|verplicht|
	måste|aldrig|bara|endast|allergisk|allergi|celiaki|glutenfri|senast|förbjudet|inte tillåtet|minst|högst|obligatorisk|
	aldri|senest|forbudt|
	musi|muszę|musimy|trzeba|nigdy|tylko|wyłącznie|alergia|alergię|uczulenie|uczulony|uczulona|celiakia|celiakię|bezglutenowy|bezglutenowe|
	najpóźniej|zakaz|zabronione|nie wolno|co najmniej|maksymalnie|obowiązkowo|
	должен|должна|должны|нужно|надо|обязательно|никогда|только|исключительно|аллергия|аллергию|аллергии|целиакия|без глютена|
	не позднее|крайний срок|запрещено|нельзя|не менее|не более|как минимум|
	повинен|повинна|повинні|треба|обов'язково|ніколи|лише|тільки|алергія|алергію|целіакія|не пізніше|заборонено|не можна|щонайменше|
	musí|musím|musíme|nikdy|jen|pouze|alergie|alergický|alergická|celiakie|bezlepkový|bezlepková|nejpozději|lhůta|zakázáno|nesmí|nejméně|
	zorunda|zorunlu|mutlaka|şart|asla|sadece|yalnızca|alerji|alerjisi|çölyak|glutensiz|son tarih|en geç|yasak|en az|en fazla|
	يجب|لازم|ضروري|أبدا|أبدًا|فقط|حساسية|السيلياك|سيلياك|الغلوتين|موعد نهائي|آخر موعد|ممنوع|على الأقل|
	باید|هرگز|حساسیت|مهلت|ممنوع|حداقل|
	חייב|חייבת|חייבים|חובה|לעולם לא|אף פעם|רק|אלרגיה|אלרגי|אלרגית|צליאק|ללא גלוטן|לא יאוחר|אסור|לפחות|
	πρέπει|ποτέ|μόνο|αλλεργία|αλλεργικός|αλλεργική|κοιλιοκάκη|χωρίς γλουτένη|προθεσμία|το αργότερο|απαγορεύεται|τουλάχιστον|υποχρεωτικά|
	kell|muszáj|kötelező|soha|csak|allergia|allergiás|cöliákia|gluténmentes|határidő|legkésőbb|tilos|legalább|legfeljebb|
	trebuie|obligatoriu|niciodată|doar|alergie|alergic|alergică|celiachie|fără gluten|termen limită|cel târziu|interzis|cel puțin|
	täytyy|pitää|pakko|ei koskaan|ainoastaan|allergia|allerginen|keliakia|gluteeniton|viimeistään|määräaika|kielletty|vähintään|enintään|
	harus|wajib|jangan|tidak pernah|hanya|cuma|alergi|seliak|bebas gluten|paling lambat|batas waktu|tenggat|dilarang|tidak boleh|maksimal|
	phải|bắt buộc|không bao giờ|chỉ|dị ứng|không gluten|hạn chót|chậm nhất|cấm|không được|ít nhất|tối đa|
	ज़रूरी|जरूरी|चाहिए|अनिवार्य|कभी नहीं|केवल|सिर्फ़|सिर्फ|एलर्जी|ग्लूटेन|अंतिम तिथि|समय सीमा|मना|कम से कम|अधिकतम|
	必须|一定要|务必|绝对不|从不|只能|只有|过敏|乳糜泻|无麸质|截止|最晚|最迟|禁止|不能|不可以|不允许|至少|最多|不超过|
	반드시|절대|알레르기|셀리악|글루텐|마감|금지|안 돼|최소|최대|필수`

const decisionMore = `
	we nemen|we kiezen|gekozen|besloten|we gaan voor|geboekt|getekend|
	vi tar|vi väljer|bestämt|vi har bestämt|valt|bokat|signerat|vi tager|besluttet|valgt|bestemt|booket|
	wybraliśmy|wybrałem|wybrałam|zdecydowaliśmy|zdecydowałem|zdecydowałam|bierzemy|biorę|zarezerwowane|podpisaliśmy|
	мы выбрали|выбрали|решили|берём|берем|подписали|забронировали|
	обрали|вирішили|беремо|підписали|забронювали|
	vybrali jsme|rozhodli jsme|bereme|beru|rozhodnuto|podepsali jsme|rezervováno|
	karar verdim|karar verdik|seçtim|seçtik|alıyoruz|imzaladık|rezervasyon yaptık|
	قررنا|قررت|اخترنا|اخترت|حجزنا|سنأخذ|وقعنا|تصمیم گرفتیم|انتخاب کردیم|
	החלטנו|החלטתי|בחרנו|בחרתי|הזמנו|ניקח|חתמנו|
	αποφασίσαμε|αποφάσισα|επιλέξαμε|διαλέξαμε|κλείσαμε|παίρνουμε|υπογράψαμε|
	döntöttünk|döntöttem|választottuk|lefoglaltuk|aláírtuk|
	am decis|am ales|luăm|am rezervat|am semnat|
	päätimme|päätin|valitsimme|otamme|varasimme|allekirjoitimme|
	kami memilih|kami putuskan|memutuskan|sudah dipesan|kami ambil|sudah ditandatangani|
	quyết định|đã chọn|đã đặt|đã ký|
	तय किया|फैसला|फ़ैसला|चुना|बुक कर दिया|
	决定|选了|就选|定了|签了|订了|
	결정|선택했|예약했|하기로|계약했`

const correctionMore = `
	eigenlijk|in plaats van|niet meer|correctie|
	egentligen|istället för|inte längre|rättelse|faktisk|i stedet for|ikke lenger|ikke længere|
	właściwie|zamiast|już nie|poprawka|pomyliłem|pomyliłam|
	вместо|на самом деле|уже не|ошибся|ошиблась|поправка|исправление|
	замість|насправді|вже не|помилився|помилилася|
	místo|vlastně|už ne|spletl jsem|spletla jsem|oprava|
	yerine|aslında|düzeltme|
	بدلا من|بدلاً من|في الواقع|تصحيح|لم يعد|أخطأت|به جای|در واقع|
	במקום|בעצם|תיקון|כבר לא|טעיתי|
	αντί για|στην πραγματικότητα|διόρθωση|έκανα λάθος|
	helyett|valójában|javítás|tévedtem|már nem|
	în loc de|de fapt|corectare|nu mai|am greșit|
	sen sijaan|itse asiassa|korjaus|ei enää|erehdyin|
	sebenarnya|bukan lagi|ralat|koreksi|salah ketik|
	thực ra|thay vì|không còn|đính chính|nhầm|
	असल में|के बजाय|की जगह|सुधार|गलती|
	其实|改成|改为|更正|而是|搞错|说错|
	정정|아니라|잘못|변경|바뀌었`
