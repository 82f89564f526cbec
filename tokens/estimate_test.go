package tokens

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
)

// estimateFixture reads testdata/estimate/fixture.jsonl with the texts of
// testdata/tokens/fixture.jsonl it refers to: each text with its o200k
// count (tiktoken's) and its count in ai-tokenizer's "claude" encoding.
func estimateFixture(t *testing.T) (texts []string, o200k, claude []int) {
	t.Helper()
	var base []struct {
		B64   string
		O200k int
	}
	readLines(t, "testdata/tokens/fixture.jsonl", func(line []byte) {
		var l struct {
			B64   string
			O200k int
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		base = append(base, l)
	})
	readLines(t, "testdata/estimate/fixture.jsonl", func(line []byte) {
		var l struct {
			I      *int
			Claude int
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		if l.I == nil {
			return // the roles' line
		}
		b, err := base64.StdEncoding.DecodeString(base[*l.I].B64)
		if err != nil {
			t.Fatal(err)
		}
		texts, o200k, claude = append(texts, string(b)), append(o200k, base[*l.I].O200k), append(claude, l.Claude)
	})
	if len(texts) != len(base) || len(texts) < 2000 {
		t.Fatalf("%d texts of %d", len(texts), len(base))
	}
	return texts, o200k, claude
}

func readLines(t *testing.T, path string, f func([]byte)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// longRun matches a run of more than 255 bytes of one repeated
// non-letter, non-digit character: the tokens the rank table leaves out.
var longRun = regexp.MustCompile(`(\s{256,}|[^\p{L}\p{N}\s]{256,})`)

// TestEstimatorParity: the Claude estimate's base is ai-tokenizer's
// "claude" count, token for token, on every fixture text but those with a
// run longer than the rank table's longest token or with U+FEFF between
// white space, which count more; so
// the estimate is at least ai-tokenizer's (round(count × 1.1)) on every
// text, EstimateMargin above it on average. The Gemini estimate is at
// least ai-tokenizer's (round(o200k × 1.08)) on every text.
func TestEstimatorParity(t *testing.T) {
	texts, o200k, claude := estimateFixture(t)
	cl, err := EstimatorForModel("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := EstimatorForModel("gemini-2.5-pro")
	if err != nil {
		t.Fatal(err)
	}
	var exceptions int
	var sumEst, sumRef float64
	for i, s := range texts {
		base := cl.base.CountTokens(s)
		switch {
		case base == claude[i]:
		case base > claude[i] && (longRun.MatchString(toValidUTF8(s)) || strings.ContainsRune(s, '\uFEFF')):
			exceptions++
		default:
			t.Errorf("text %d (%.40q): claude count %d, ai-tokenizer's %d", i, s, base, claude[i])
		}
		ref := int(math.Round(float64(claude[i]) * 1.1))
		if est := cl.CountTokens(s); est < ref {
			t.Errorf("text %d: Claude estimate %d below ai-tokenizer's %d", i, est, ref)
		}
		sumEst += float64(cl.CountTokens(s))
		sumRef += float64(ref)
		if est, ref := gm.CountTokens(s), int(math.Round(float64(o200k[i])*1.08)); est < ref {
			t.Errorf("text %d: Gemini estimate %d below ai-tokenizer's %d", i, est, ref)
		}
	}
	t.Logf("%d texts: Claude base equal to ai-tokenizer's on all but %d (long runs or U+FEFF amid white space, counted higher); estimate %.2f%% above ai-tokenizer's in all",
		len(texts), exceptions, 100*(sumEst/sumRef-1))
	if exceptions > 30 {
		t.Errorf("%d texts count differently from ai-tokenizer", exceptions)
	}
}

func TestEstimatorForModel(t *testing.T) {
	for _, tc := range []struct {
		model, family string
		overhead      int
		exact         bool
	}{
		{"gpt-4o", FamilyOpenAI, OpenAIMessageOverhead, true},
		{"openai/gpt-5-mini", FamilyOpenAI, OpenAIMessageOverhead, true},
		{"o3", FamilyOpenAI, OpenAIMessageOverhead, true},
		{"claude-sonnet-4-5", FamilyClaude, 3, false},
		{"claude-3-5-haiku-latest", FamilyClaude, 3, false},
		{"anthropic/claude-opus-4.1", FamilyClaude, 3, false},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", FamilyClaude, 3, false},
		{"us.anthropic.claude-sonnet-4-20250514-v1:0", FamilyClaude, 3, false},
		{"claude-sonnet-4@20250514", FamilyClaude, 3, false},
		{"Claude-Opus-4-5", FamilyClaude, 3, false},
		{"gemini-2.5-flash", FamilyGemini, 0, false},
		{"models/gemini-3-pro-preview", FamilyGemini, 0, false},
		{"google/gemini-2.0-flash-lite", FamilyGemini, 0, false},
	} {
		e, err := EstimatorForModel(tc.model)
		if err != nil {
			t.Errorf("%s: %v", tc.model, err)
			continue
		}
		if e.Family() != tc.family || e.MessageOverhead() != tc.overhead || e.Exact() != tc.exact {
			t.Errorf("%s: family %s, overhead %d, exact %v; want %s, %d, %v", tc.model, e.Family(), e.MessageOverhead(), e.Exact(), tc.family, tc.overhead, tc.exact)
		}
		if n := e.CountTokens("Hello, world! How are you today?"); n < 8 || n > 12 {
			t.Errorf("%s: %d tokens for a short sentence", tc.model, n)
		}
		if e.CountTokens("") != 0 {
			t.Errorf("%s: the empty text counts", tc.model)
		}
	}
	for _, m := range []string{"llama-3.1-70b", "mistral-large", "", "claude"} {
		if _, err := EstimatorForModel(m); !errors.Is(err, ErrUnknownEncoding) {
			t.Errorf("EstimatorForModel(%q) = %v, want ErrUnknownEncoding", m, err)
		}
	}
}

// FuzzEstimate: on any input, the estimates do not panic, count nothing
// for nothing, and are at least their base count.
func FuzzEstimate(f *testing.F) {
	for _, s := range []string{"hello", "\ufeff \ufeff", "   \n\n\t", "日本語", "\xff\xfe", strings.Repeat(" ", 600), "'s'll'VE"} {
		f.Add(s)
	}
	cl, _ := EstimatorForModel("claude-sonnet-4-5")
	gm, _ := EstimatorForModel("gemini-2.5-flash")
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []*Estimator{cl, gm} {
			n, base := e.CountTokens(s), e.base.CountTokens(s)
			if n < base || (s == "") != (n == 0) || base > len(toValidUTF8(s)) {
				t.Fatalf("%s: %q counts %d on a base of %d", e.Family(), s, n, base)
			}
		}
	})
}
