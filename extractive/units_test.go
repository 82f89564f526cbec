package extractive

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitUnitsGaps(t *testing.T) {
	order := 0
	us := splitUnits(nil, "Assistant", "The code is SORRY15. It is valid for 12 months.\n**Next steps**\nKeep the receipt for 5 years. Thanks!\nOk, call us at 0800 123 456 if needed.", &order, 3)
	var got []string
	for _, u := range us {
		g := "joins"
		if u.gap {
			g = "gap"
		}
		got = append(got, g+": "+u.text)
	}
	want := []string{
		"gap: The code is SORRY15.",
		"joins: It is valid for 12 months.",
		"gap: Keep the receipt for 5 years.",
		"gap: call us at 0800 123 456 if needed.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("units mismatch (-want +got):\n%s", diff)
	}
}
