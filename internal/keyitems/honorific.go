package keyitems

import (
	"strings"
	"unicode"
)

// Scripts without capital letters mark a person's name by the honorific
// after it: 佐々木さん, 岡部先生, 田中くん, 王老师, 李女士. The honorifics
// here are those that follow a name and do not end common words: not 様
// (仕様, 模様, 同様) nor 氏 (氏名).
var honorifics = []string{"さん", "さま", "先生", "くん", "ちゃん", "先輩", "老师", "女士"}

// roleEnds end the words for a role or a trade that also take さん
// (大家さん, 業者さん, 看護師さん, 本屋さん, 社長さん): a run ending with one
// is not a name.
const roleEnds = "屋者員師士長人手医客家"

// roleWords take an honorific without being names, in katakana and kanji
// and the family's (スタッフさん, 義父さん; 担任の先生 has a particle
// between, and 母さん a single character).
var roleWords = WordSet(`スタッフ ドライバー オーナー トレーナー コーチ ヘルパー ケアマネ マネージャー シェフ デザイナー
	エンジニア カメラマン ママ パパ 担任 主治医 上司 同僚 部長 課長 係長 先方 相手 受付 営業 事務 担当 幹事 当日
	息子 旦那 義父 義母 義兄 義姉 義弟 義妹 祖父 祖母 叔父 叔母 伯父 伯母 親御 両親 子供 子ども 彼氏 彼女`)

// HonorificNames returns the names in s, a text of a script written
// without spaces, that an honorific follows (see honorifics): a run of 2 to
// 4 Han characters (々 included) or of 2 to 10 katakana before it.
func HonorificNames(s string) []string {
	var out []string
	for _, h := range honorifics {
		for rest, off := s, 0; ; {
			i := strings.Index(rest, h)
			if i < 0 {
				break
			}
			if n := nameBefore(s[:off+i]); n != "" {
				out = append(out, n)
			}
			off += i + len(h)
			rest = s[off:]
		}
	}
	return out
}

// nameBefore returns the run of Han characters or of katakana that ends
// s, if it is of a name's length and no role word.
func nameBefore(s string) string {
	rs := []rune(s)
	j := len(rs)
	if j == 0 {
		return ""
	}
	katakana := func(r rune) bool { return r == 'ー' || r != '・' && unicode.Is(unicode.Katakana, r) }
	han := unicode.Is(unicode.Han, rs[j-1])
	kana := !han && katakana(rs[j-1])
	if !han && !kana {
		return ""
	}
	i := j
	for i > 0 && (han && unicode.Is(unicode.Han, rs[i-1]) || kana && katakana(rs[i-1])) {
		i--
	}
	n := j - i
	if han && (n < 2 || n > 4) || kana && (n < 2 || n > 10) {
		return ""
	}
	name := string(rs[i:j])
	if roleWords[name] || strings.ContainsRune(name, '〇') || han && strings.ContainsRune(roleEnds, rs[j-1]) {
		return ""
	}
	return name
}
