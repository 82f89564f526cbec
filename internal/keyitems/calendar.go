package keyitems

// The words that make a number a date, a time or an amount in the
// languages the cue lists do not cover: the months (as written in a date,
// which in Slavic languages, Greek and Finnish is not the month's name
// alone), weekdays, units of time and currencies of the most used
// languages of the web (Portuguese, Dutch, Polish, Russian, Ukrainian,
// Bulgarian, Serbian, Croatian, Czech, Slovak, Turkish, Persian, Chinese,
// Vietnamese, Indonesian and Malay, Korean, Arabic, Greek, Hungarian,
// Swedish, Danish, Norwegian, Romanian, Hebrew, Thai, Finnish, Hindi).
// They are dictionary words, not cues learned from chats: a date in Polish
// ("20 września") weighs what one in French does. Currency codes that are
// English words or names (try, php, cad, ron, ft for feet) are left out:
// a currency before a number makes it money.

// unitSigns are the signs that make the number next to them money, or a
// share (%).
const unitSigns = "$€£¥%₩₽₴₺₹₪₫฿₱₦₸₼₾"

const monthsMore = `
	janeiro fevereiro março maio junho julho setembro outubro novembro dezembro
	januari februari maart mei augustus
	mars maj augusti
	marts desember
	styczeń luty marzec kwiecień czerwiec lipiec sierpień wrzesień październik listopad grudzień
	stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
	январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь
	января февраля марта апреля мая июня июля августа сентября октября ноября декабря
	січень лютий березень квітень травень червень липень серпень вересень жовтень листопад грудень
	січня лютого березня квітня травня червня липня серпня вересня жовтня листопада грудня
	януари февруари април юни юли септември октомври ноември декември
	јануар фебруар мај јун јул септембар октобар новембар децембар
	mart jun jul avgust septembar oktobar novembar decembar
	siječanj veljača ožujak travanj svibanj lipanj srpanj kolovoz rujan studeni prosinac
	siječnja veljače ožujka travnja svibnja lipnja srpnja kolovoza rujna listopada studenoga studenog prosinca
	leden únor březen duben květen červen červenec srpen září říjen prosinec
	ledna února března dubna května června července srpna října listopadu prosince
	január február marec apríl máj jún júl október
	januára februára marca apríla mája júna júla augusta septembra októbra novembra decembra
	ocak şubat nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık
	ژانویه فوریه مارس آوریل ژوئن ژوئیه اوت سپتامبر اکتبر نوامبر دسامبر
	فروردین اردیبهشت خرداد تیر مرداد شهریور مهر آبان آذر بهمن اسفند
	tháng
	maret agustus desember mac julai ogos disember
	يناير فبراير مارس أبريل ابريل مايو يونيو يوليو أغسطس اغسطس سبتمبر أكتوبر اكتوبر نوفمبر ديسمبر
	كانون شباط آذار نيسان أيار حزيران تموز آب أيلول تشرين
	ιανουάριος φεβρουάριος μάρτιος απρίλιος μάιος ιούνιος ιούλιος αύγουστος σεπτέμβριος οκτώβριος νοέμβριος δεκέμβριος
	ιανουαρίου φεβρουαρίου μαρτίου απριλίου μαΐου ιουνίου ιουλίου αυγούστου σεπτεμβρίου οκτωβρίου νοεμβρίου δεκεμβρίου
	március április május június július augusztus szeptember
	ianuarie februarie martie aprilie iunie iulie septembrie octombrie noiembrie decembrie
	ינואר פברואר מרץ אפריל מאי יוני יולי אוגוסט ספטמבר אוקטובר נובמבר דצמבר
	בינואר בפברואר במרץ באפריל במאי ביוני ביולי באוגוסט בספטמבר באוקטובר בנובמבר בדצמבר
	มกราคม กุมภาพันธ์ มีนาคม เมษายน พฤษภาคม มิถุนายน กรกฎาคม สิงหาคม กันยายน ตุลาคม พฤศจิกายน ธันวาคม
	tammikuu helmikuu maaliskuu huhtikuu toukokuu kesäkuu heinäkuu elokuu syyskuu lokakuu marraskuu joulukuu
	tammikuuta helmikuuta maaliskuuta huhtikuuta toukokuuta kesäkuuta heinäkuuta elokuuta syyskuuta lokakuuta marraskuuta joulukuuta
	जनवरी फ़रवरी फरवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर सितम्बर अक्टूबर अक्तूबर नवंबर नवम्बर दिसंबर दिसम्बर`

const weekdaysMore = `
	segunda-feira terça-feira quarta-feira quinta-feira sexta-feira sábado domingo
	maandag dinsdag woensdag donderdag vrijdag zaterdag zondag måndag tisdag onsdag torsdag fredag lördag söndag
	mandag tirsdag lørdag søndag
	poniedziałek wtorek środa czwartek piątek sobota niedziela
	понедельник вторник среда среду четверг пятница пятницу суббота субботу воскресенье
	понеділок вівторок середа середу четвер пʼятниця пятниця пʼятницю субота суботу неділя неділю
	pondělí úterý středa čtvrtek pátek sobota neděle
	pazartesi salı çarşamba perşembe cuma cumartesi pazar
	senin selasa rabu kamis jumat sabtu minggu
	hétfő kedd szerda csütörtök péntek szombat vasárnap
	luni marți miercuri joi vineri sâmbătă duminică
	maanantai tiistai keskiviikko torstai perjantai lauantai sunnuntai
	δευτέρα τρίτη τετάρτη πέμπτη παρασκευή σάββατο κυριακή`

const timeUnitsMore = `
	dias semanas meses anos horas minutos dia semana mês ano hora
	dagen weken maanden jaar uur dag week maand
	dagar veckor månader år timmar dager uker måneder timer
	dni dzień tygodni tygodnie miesięcy miesiące lat godzin godziny minut
	дней дня день недель недели месяцев месяца лет года часов часа минут
	днів дні тижнів тижні місяців місяці років роки годин години хвилин
	dní dnů dny týdnů měsíců let hodin minut
	gün hafta ay yıl saat dakika
	hari minggu bulan tahun jam menit
	ngày tuần năm giờ phút
	nap hét hónap év óra perc
	zile săptămâni luni ani ore
	päivää viikkoa kuukautta vuotta tuntia
	ημέρες μέρες εβδομάδες μήνες χρόνια ώρες λεπτά
	يوم أيام يومًا أسبوع أسابيع شهر أشهر سنة سنوات ساعة ساعات دقيقة دقائق
	ימים שבועות חודשים שנים שעות דקות
	दिन सप्ताह हफ्ते हफ़्ते महीने साल घंटे मिनट
	天 小时 周 个月 号 点 일 월 년 시 분 주 개월 시간`

const moneyMore = `₽ ₴ ₺ ₹ ₪ ₫ ฿ ₱ ₦ ₸ ₼ ₾
	r$ reais brl zł złotych zloty pln руб руб. рублей рубля рубль грн гривень гривні uah лв лева bgn
	rsd kn kr kr. sek nok dkk kronor kroner kč czk korun huf forint lei tl lira
	tomans تومان ریال ريال ر.س جنيه درهم دينار sar aed egp
	₹ rs inr रुपये रुपए ₪ שקל שקלים nis rp idr rupiah myr ₫ vnđ vnd đồng đ ฿ บาท thb
	원 만원 억원 천원 krw 块 万元 rmb cny hkd sgd aud nzd mxn ars clp zar`
