package keyitems

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFeaturesLanguages: dates and amounts in languages the cue lists do
// not cover are dates and amounts, weighing what they weigh in English,
// with their currency before or after the number.
func TestFeaturesLanguages(t *testing.T) {
	tests := []struct {
		text   string
		want   Feature
		weight float64
	}{
		{"Wesele jest 20 września.", Feature{Kind: Number, Key: "20 września", Shape: "września"}, 2},
		{"Срок до 28 апреля.", Feature{Kind: Number, Key: "28 апреля", Shape: "апреля"}, 2},
		{"De vergunning komt op 6 maart.", Feature{Kind: Number, Key: "6 maart", Shape: "maart"}, 2},
		{"Tillträde den 31 januari.", Feature{Kind: Number, Key: "31 januari", Shape: "januari"}, 2},
		{"Το συμβόλαιο λήγει στις 15 Απριλίου.", Feature{Kind: Number, Key: "15 απριλίου", Shape: "απριλίου"}, 2},
		{"Hẹn gặp tháng 6 nhé.", Feature{Kind: Number, Key: "tháng 6", Shape: "tháng"}, 2},
		{"Wymiana klocków kosztuje 8 900 руб.", Feature{Kind: Number, Key: "8 900 руб", Shape: "руб"}, 2},
		{"Zadatek to 5 000 zł.", Feature{Kind: Number, Key: "5 000 zł", Shape: "zł"}, 2},
		{"Harganya Rp 4.500.000 per bulan.", Feature{Kind: Number, Key: "rp 4.500.000", Shape: "rp"}, 2},
		{"Die Miete ist CHF 2100.", Feature{Kind: Number, Key: "chf 2100", Shape: "chf"}, 2},
		{"월세 공제는 1,122,000원입니다.", Feature{Kind: Number, Key: "1,122,000원", Shape: "원"}, 2},
		{"Цена 31 500 ₽ в день.", Feature{Kind: Number, Key: "31 500₽", Shape: "₽"}, 2},
		{"The fee is ₹12,000.", Feature{Kind: Number, Key: "₹12,000", Shape: "₹"}, 2},
		{"It takes 48 小时 at most.", Feature{Kind: Number, Key: "48小时", Shape: "小时"}, 2},
	}
	for _, tt := range tests {
		fs, _ := Features(tt.text, nil, nil)
		var got *Feature
		for i := range fs {
			if fs[i].Kind == Number {
				got = &fs[i]
				break
			}
		}
		if got == nil {
			t.Errorf("Features(%q) = %+v: no number with a unit", tt.text, fs)
			continue
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("Features(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
		if w := got.Weight(); w != tt.weight {
			t.Errorf("Features(%q): weight %v, want %v", tt.text, w, tt.weight)
		}
	}
}

// TestFeaturesSigns: a currency or percent sign before a number is the
// number's only when nothing but white space is between them; in a sum
// ("62.000 € + 10 %", "% = 68.200") the sign belongs to the number before
// it, and the next number is bare or takes the sign after it.
func TestFeaturesSigns(t *testing.T) {
	tests := []struct {
		text string
		want []string // the keys of the numbers, in order
	}{
		{"62.000 € + 10 % = **68.200 €**", []string{"62.000€", "10%", "68.200€"}},
		{"168.000 € × 8 % = 13.440 €", []string{"168.000€", "8%", "13.440€"}},
		{"Total: €45, then $ 12 and (£7).", []string{"€45", "$12", "£7"}},
		{"Il costo è 20 € / 5 persone.", []string{"20€", "5 persone"}},
		{"Vergi oranı %18 oldu.", []string{"%18"}},
	}
	for _, tt := range tests {
		fs, _ := Features(tt.text, nil, nil)
		var got []string
		for _, f := range fs {
			if f.Kind == Number || f.Kind == Bare {
				got = append(got, f.Key)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Features(%q) numbers mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}
