package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestToValidUTF8(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"Valid", "héllo 😀", "héllo 😀"},
		{"LoneContinuation", "a\x80b", "a\uFFFDb"},
		{"TruncatedThree", "\xe2\x82z", "\uFFFDz"},
		{"TruncatedFour", "\xf0\x9f\x98", "\uFFFD"},
		{"Overlong", "\xc0\x80", "\uFFFD\uFFFD"},
		{"OverlongThree", "\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"Surrogate", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"AboveMax", "\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"F5", "\xf5\xff", "\uFFFD\uFFFD"},
		{"TruncatedThenValid", "\xe1\x80A\xf0\x9f\x98\x80", "\uFFFDA😀"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toValidUTF8(tt.in); got != tt.want || !utf8.ValidString(got) {
				t.Errorf("toValidUTF8(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzToValidUTF8 checks the WHATWG decoding rule's invariants.
func FuzzToValidUTF8(f *testing.F) {
	for _, s := range []string{"abc", "\xe2\x82", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xffb\xf0\x9f\x98"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := toValidUTF8(s)
		if !utf8.ValidString(got) {
			t.Fatalf("toValidUTF8(%q) = %q, not valid UTF-8", s, got)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("toValidUTF8 changed valid %q to %q", s, got)
		}
		if n := utf8.RuneCountInString(got); n > len(s) {
			t.Fatalf("toValidUTF8(%q) has %d runes, more than %d bytes", s, n, len(s))
		}
	})
}

// TestValidPrefix: validPrefix maps a prefix of toValidUTF8(s) back to the
// longest prefix of s that reads as it.
func TestValidPrefix(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"Valid", "héllo", 3, "hé"},
		{"BeforeInvalid", "a\xffb", 1, "a"},
		{"Invalid", "a\xffb", 4, "a\xff"},
		{"InvalidSequence", "a\xe2\x82b", 4, "a\xe2\x82"},
		{"All", "a\xe2\x82b", 5, "a\xe2\x82b"},
		{"Past", "a\xffb", 100, "a\xffb"},
		{"None", "\xff", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in[:validPrefix(tt.in, tt.n)]; got != tt.want {
				t.Errorf("validPrefix(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
			if v := toValidUTF8(tt.want); !strings.HasPrefix(toValidUTF8(tt.in), v) || len(v) > tt.n {
				t.Errorf("validPrefix(%q, %d): %q reads as %q", tt.in, tt.n, tt.want, v)
			}
		})
	}
}
