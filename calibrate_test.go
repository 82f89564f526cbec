package recap

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recapgo/recap/tokens"
)

// provider simulates a provider's tokenizer: o200k_base's count of each
// message times a factor that depends on the text (1.1 for prose, up to
// 1.3 for code and 1.45 for other scripts, by the share of their
// characters), the per-message overhead, and ±1% noise on the total.
type provider struct {
	o200k TokenCounter
	rng   *rand.Rand
}

func (p *provider) factor(text string) float64 {
	var code, other, all float64
	for _, r := range text {
		all++
		switch {
		case r >= utf8.RuneSelf:
			other++
		case strings.ContainsRune("{}[]()<>=;:/\\_*&|#@$%^~`+0123456789", r):
			code++
		}
	}
	if all == 0 {
		return 1.1
	}
	return 1.1 + 0.2*code/all*1.0 + 0.35*other/all
}

func (p *provider) count(payload []Message, overhead int) int {
	var n float64
	for _, m := range payload {
		text := m.Text()
		n += float64(p.o200k.CountTokens(text))*p.factor(text) + float64(overhead)
	}
	return int(math.Round(n * (1 + (p.rng.Float64()*2-1)*0.01)))
}

// calibrationChats makes chats from the token fixture's texts, each with
// its own mix of prose, code and other scripts.
func calibrationChats(t *testing.T, rng *rand.Rand, n, turns int) [][]Message {
	byCat := map[string][]string{}
	for _, c := range loadFixture(t) {
		if utf8.ValidString(c.text) && len(c.text) < 3000 {
			byCat[c.Cat] = append(byCat[c.Cat], c.text)
		}
	}
	cats := []string{"prose", "code", "json", "cjk", "scripts", "chat", "digits", "emoji"}
	chats := make([][]Message, n)
	for i := range chats {
		// A chat favours a few kinds of text.
		w := make([]float64, len(cats))
		for j := range w {
			w[j] = rng.Float64() * rng.Float64()
		}
		pick := func() string {
			var sum float64
			for _, x := range w {
				sum += x
			}
			r := rng.Float64() * sum
			for j, x := range w {
				if r -= x; r <= 0 {
					texts := byCat[cats[j]]
					return texts[rng.Intn(len(texts))]
				}
			}
			return byCat["prose"][0]
		}
		var msgs []Message
		for k := 0; k < turns; k++ {
			msgs = append(msgs,
				Message{ID: "u" + itoa(k), Role: RoleUser, Content: pick()},
				Message{ID: "a" + itoa(k), Role: RoleAssistant, Content: pick() + "\n" + pick()})
		}
		chats[i] = msgs
	}
	return chats
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCalibratorSimulatedProvider: after 10 observed calls, the calibrated
// count errs high on at least 99% of turns and is within 2% of the
// provider's on average, and the ceiling of a Compressor that counts with
// it holds, by the provider's count, on at least 99% of turns.
func TestCalibratorSimulatedProvider(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	o200k, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	prov := &provider{o200k: o200k, rng: rng}
	cal := NewCalibrator(o200k)
	const (
		model    = "claude-sonnet-4"
		overhead = 4
		ceiling  = 3400
	)
	ctx := context.Background()
	var turns, high, holds, near, plainHolds int
	var relErr float64
	for ci, chat := range calibrationChats(t, rng, 120, 30) {
		c, err := New(&recorder{}, NewMemoryStore(), WithTokenCounter(cal.Counter(model)), WithMessageOverhead(overhead),
			WithTriggerTokens(3000), WithMaxPayloadTokens(ceiling))
		if err != nil {
			t.Fatal(err)
		}
		// The same chat counted by o200k_base alone, for comparison.
		plain, err := New(&recorder{}, NewMemoryStore(), WithTokenCounter(o200k), WithMessageOverhead(overhead),
			WithTriggerTokens(3000), WithMaxPayloadTokens(ceiling))
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < len(chat); k += 2 {
			res, err := c.Compress(ctx, "c", chat[:k+1])
			if err != nil {
				t.Fatalf("chat %d turn %d: %v", ci, k/2, err)
			}
			reported := prov.count(res.Payload, overhead)
			if cal.Observations(model) >= 10 {
				est := 0
				for _, m := range res.Payload {
					est += cal.count(model, m.Text()) + overhead
				}
				turns++
				if est >= reported {
					high++
				}
				if reported <= ceiling {
					holds++
				}
				if est > ceiling*9/10 {
					near++
				}
				pres, err := plain.Compress(ctx, "c", chat[:k+1])
				if err != nil {
					t.Fatal(err)
				}
				if prov.count(pres.Payload, overhead) <= ceiling {
					plainHolds++
				}
				relErr += float64(est-reported) / float64(reported)
			}
			if err := cal.Observe(model, Usage{Payload: res.Payload, Overhead: overhead, Reported: reported}); err != nil {
				t.Fatal(err)
			}
		}
	}
	highShare, holdShare, mean := float64(high)/float64(turns), float64(holds)/float64(turns), relErr/float64(turns)
	t.Logf("%d turns after 10 observations: estimate ≥ provider on %.2f%%, ceiling held on %.2f%% (%d turns within 10%% of it; %.2f%% with o200k_base alone), mean error %+.2f%%",
		turns, 100*highShare, 100*holdShare, near, 100*float64(plainHolds)/float64(turns), 100*mean)
	if plainHolds >= holds {
		t.Errorf("the uncalibrated counter held the ceiling as often (%d turns) as the calibrated one (%d)", plainHolds, holds)
	}
	if highShare < 0.99 || holdShare < 0.99 || mean < 0 || mean > 0.02 {
		t.Errorf("estimate ≥ provider on %.2f%% of turns, ceiling held on %.2f%%, mean error %+.2f%%; want ≥ 99%%, ≥ 99%%, within 0–2%%",
			100*highShare, 100*holdShare, 100*mean)
	}
}

func TestCalibratorObserveErrors(t *testing.T) {
	cal := NewCalibrator(nil)
	msgs := []Message{{ID: "u", Role: RoleUser, Content: "hello there"}}
	for _, u := range []Usage{
		{Payload: msgs, Reported: 0},
		{Payload: msgs, Reported: 10, Overhead: -1},
		{Payload: msgs, Reported: 10, Fixed: -1},
		{Payload: nil, Reported: 10},
	} {
		if err := cal.Observe("m", u); !errors.Is(err, ErrInvalidUsage) {
			t.Errorf("Observe(%+v) = %v, want ErrInvalidUsage", u, err)
		}
	}
	if cal.Observations("m") != 0 {
		t.Error("a rejected usage was counted")
	}
}

// TestCalibratorBeforeObservations: with nothing learned the counter is
// the base count plus the default margin; a model's corrections do not
// leak into another's.
func TestCalibratorBeforeObservations(t *testing.T) {
	base := TokenCounterFunc(func(s string) int { return len(strings.Fields(s)) })
	cal := NewCalibrator(base)
	text := "one two three four five six seven eight nine ten"
	if got, want := cal.Counter("a").CountTokens(text), int(math.Ceil(10*(1+DefaultCalibrationMargin))); got != want {
		t.Fatalf("count before observations = %d, want %d", got, want)
	}
	msgs := []Message{{ID: "u", Role: RoleUser, Content: text}}
	for i := 0; i < 20; i++ {
		if err := cal.Observe("a", Usage{Payload: msgs, Reported: 20}); err != nil {
			t.Fatal(err)
		}
	}
	if got := cal.Counter("a").CountTokens(text); got < 20 || got > 21 {
		t.Errorf("after 20 observations of twice the base count: %d, want 20 or 21", got)
	}
	if got := cal.Counter("b").CountTokens(text); got != 11 {
		t.Errorf("another model: %d, want 11", got)
	}
	if f := cal.Factor("a", text); f < 2 || f > 2.1 {
		t.Errorf("Factor = %v", f)
	}
}

// TestCalibratorConcurrent: Observe and the counters may run at once (run
// with -race).
func TestCalibratorConcurrent(t *testing.T) {
	cal := NewCalibrator(TokenCounterFunc(func(s string) int { return len(s) }))
	msgs := []Message{{ID: "u", Role: RoleUser, Content: "some text 123 ünïcode"}}
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				cal.Observe("m", Usage{Payload: msgs, Reported: 30 + i%3})
				cal.Counter("m").CountTokens("more text 456")
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	if n := cal.Observations("m"); n != 800 {
		t.Fatalf("%d observations, want 800", n)
	}
}

// TestCalibratorCounterVersion: a Compressor counting with a Calibrator's
// counter follows the calibration (its cached counts are of one version),
// and once the correction settles the version stops moving, so chats are
// not counted again on every observation.
func TestCalibratorCounterVersion(t *testing.T) {
	cal := NewCalibrator(nil)
	counter := cal.Counter("m")
	vc, ok := counter.(tokens.VersionedCounter)
	if !ok {
		t.Fatal("a Calibrator's counter is not a tokens.VersionedCounter")
	}
	c, err := New(&recorder{}, NewMemoryStore(), WithTokenCounter(counter), WithTriggerTokens(100000))
	if err != nil {
		t.Fatal(err)
	}
	chat := conversation(5)
	first, err := c.Compress(context.Background(), "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	base := 0
	for _, m := range chat {
		base += cal.base.CountTokens(m.Text())
	}
	versions := []uint64{vc.CountVersion()}
	for i := 0; i < 30; i++ {
		if err := cal.Observe("m", Usage{Payload: chat, Reported: base * 13 / 10}); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, vc.CountVersion())
	}
	second, err := c.Compress(context.Background(), "c", chat)
	if err != nil {
		t.Fatal(err)
	}
	if second.PayloadTokens < base*13/10 || second.PayloadTokens <= first.PayloadTokens {
		t.Errorf("payload tokens %d before calibration, %d after (provider counts %d): the cached counts were kept",
			first.PayloadTokens, second.PayloadTokens, base*13/10)
	}
	if versions[len(versions)-1] == versions[0] {
		t.Errorf("version never changed: %v", versions)
	}
	if last := versions[len(versions)-10:]; last[0] != last[len(last)-1] {
		t.Errorf("version still moving after 20 identical observations: %v", versions)
	}
}

// TestEstimatorWithCompressor: an Estimator plugs into a Compressor and a
// Calibrator as any counter does.
func TestEstimatorWithCompressor(t *testing.T) {
	e, _ := tokens.EstimatorForModel("claude-haiku-4-5")
	c, err := New(&recorder{}, NewMemoryStore(), WithTokenCounter(NewCalibrator(e).Counter("claude-haiku-4-5")),
		WithMessageOverhead(e.MessageOverhead()), WithReservedTokens(e.RequestOverhead()), WithMaxPayloadTokens(10000))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compress(context.Background(), "c", conversation(3))
	if err != nil || res.PayloadTokens == 0 {
		t.Fatalf("Compress = %+v, %v", res, err)
	}
}
