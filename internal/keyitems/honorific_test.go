package keyitems

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestHonorificNames: in a script without capital letters, the honorific
// after a name makes it one; role and family words that take one too, and
// words that end in a character some honorifics share, do not.
func TestHonorificNames(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"インフラ側は佐々木さんが担当です。", []string{"佐々木"}},
		{"岡部先生に紹介状を書いてもらいました", []string{"岡部"}},
		{"担当の田村恵子さんから電話がありました", []string{"田村恵子"}},
		{"ミラーさんと翔太くんが来ます", []string{"ミラー", "翔太"}},
		{"王老师和李女士都同意了", nil}, // one Han character is too short to tell from a word
		{"王敏老师明天来", []string{"王敏"}},
		{"山崎さまへのメール", []string{"山崎"}},
		{"担任の先生と相談します", nil},         // a particle before 先生
		{"大家さんと業者さんに連絡した", nil},      // a landlord, a contractor
		{"看護師さんと本屋さん", nil},          // trades
		{"義父さんと息子さんも来ます", nil},       // family
		{"スタッフさんが案内します", nil},        // a role in katakana
		{"製品の仕様と同様に、お客様の氏名を書く", nil}, // 様 and 氏 end common words: no honorifics
		{"お母さんに聞きます", nil},           // a single character
		{"〇〇さんへ", nil},               // a placeholder
		{"長谷川久美子さま", nil},            // six characters: longer than a name's run
	}
	for _, tt := range tests {
		got := HonorificNames(tt.text)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("HonorificNames(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
	// And Features weighs them as names, so that the summary check holds
	// them as key items.
	fs, _ := Features("予約は山崎さんにお願いしました。", nil, nil)
	if diff := cmp.Diff([]Feature{{Kind: Name, Key: "山崎"}}, fs); diff != "" {
		t.Errorf("Features mismatch (-want +got):\n%s", diff)
	}
}

// FuzzHonorificNames: every name found is in the text, of a name's length,
// and right before an honorific there.
func FuzzHonorificNames(f *testing.F) {
	f.Add("インフラ側は佐々木さんが担当です。")
	f.Add("ミラーさんと翔太くん、王敏老师")
	f.Add("さん先生くん")
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range HonorificNames(s) {
			if l := utf8.RuneCountInString(n); l < 2 || l > 10 {
				t.Fatalf("HonorificNames(%q): %q has %d characters", s, n, l)
			}
			found := false
			for _, h := range honorifics {
				if strings.Contains(s, n+h) {
					found = true
				}
			}
			if !found {
				t.Fatalf("HonorificNames(%q): %q is not before an honorific", s, n)
			}
		}
	})
}
