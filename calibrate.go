package recap

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
)

// Calibration from usage: every provider response reports the input tokens
// it billed; a Calibrator learns from them how far a counter's estimate is
// from the provider's count, per model, and corrects the counter so that it
// errs high.

// ErrInvalidUsage is matched by the errors of [Calibrator.Observe] for a
// usage it cannot learn from.
var ErrInvalidUsage = errors.New("recap: invalid usage")

// Usage is one call to a provider, as a Calibrator learns from it.
type Usage struct {
	// Payload is what was sent: the Result.Payload of Compress.
	Payload []Message
	// Overhead is the tokens added per message, as WithMessageOverhead
	// (tokens.OpenAIMessageOverhead for OpenAI's chat models), taken as
	// exact.
	Overhead int
	// Fixed is the rest of the request, counted by the base counter and
	// taken as exact: tokens.OpenAIRequestOverhead's count, or 0.
	Fixed int
	// Reported is the input tokens the provider billed for the call
	// (OpenAI's usage.prompt_tokens, Anthropic's usage.input_tokens plus
	// its cache reads and writes, Gemini's usageMetadata.promptTokenCount),
	// or an exact count from a provider's token-counting endpoint.
	Reported int
}

// Calibrator learns, per model, a correction of a base TokenCounter from
// the input tokens that a provider reports, and gives a counter for each
// model (Counter) that applies it and errs high. It is safe for concurrent
// use; it starts no goroutine and keeps a few hundred bytes per model.
//
// The correction is a weight per kind of text, which is where tokenizers
// differ most: ASCII letters, white space, digits, ASCII punctuation and
// symbols, and everything else (other scripts, emoji). A text's calibrated count is the base counter's count shared
// out among the kinds by their share of its characters, each share times
// its weight, times 1 plus a safety margin, rounded up. The weights are fitted by least squares to the
// recent observations (each weighing 3% less than the next), and the
// margin is the spread of the errors of the last 32 observations under
// those weights: two standard deviations above their mean, and no less
// than 0.5%. Until MinObservations calls were observed, the
// margin is DefaultCalibrationMargin. Before any, the counter is the base
// counter times 1 + DefaultCalibrationMargin.
//
// Measured (TestCalibratorSimulatedProvider): against a simulated provider
// whose counts differ from o200k_base's by a text-dependent factor (1.1
// to 1.45 with the share of code and of other scripts) with ±1% noise, over
// 120 chats of 30 turns each made of the token fixture's texts, after 10
// observations the calibrated count was at or above the provider's on
// 99.8% of 3,590 turns and 1.8% above it on average, and a Compressor
// counting with it kept the provider-counted payload under its ceiling on
// every turn (87.4% with o200k_base alone).
type Calibrator struct {
	base TokenCounter

	mu     sync.Mutex             // protects models
	models map[string]*calibrated // by model name
}

// Calibration settings.
const (
	DefaultCalibrationMargin = 0.10 // the margin before MinObservations
	MinObservations          = 5    // observations before the measured margin is used
	calibrationDecay         = 0.97 // the weight of an observation, relative to the next
	calibrationWindow        = 32   // the errors the margin is measured on
	minCalibrationMargin     = 0.005
)

// NewCalibrator returns a Calibrator of base, or of the default o200k_base
// counter if base is nil.
func NewCalibrator(base TokenCounter) *Calibrator {
	if base == nil {
		base = defaultCounter()
	}
	return &Calibrator{base: base, models: map[string]*calibrated{}}
}

// textKinds is the number of kinds of text a Calibrator weighs.
const textKinds = 5

// calibrated is what a Calibrator learned of one model.
type calibrated struct {
	n      int                           // observations
	sxx    [textKinds][textKinds]float64 // decayed sums of x xᵀ
	sxy    [textKinds]float64            // decayed sums of x y
	weight [textKinds]float64            // the fitted weights
	recent []observation                 // the last observations, oldest first
	margin float64

	// version counts the changes of the correction of more than
	// versionStep since the last one (see VersionedCounter); vweight and
	// vmargin are the correction at the last change.
	version uint64
	vweight [textKinds]float64
	vmargin float64
}

// versionStep is the relative change of a weight, or the change of the
// margin, that makes a new version of a model's counter: smaller changes
// are within the margin and do not make a Compressor count a chat again.
const versionStep = 0.002

// observation is one call: the tokens of each kind of text, the tokens
// taken as exact, and the provider's count.
type observation struct {
	x        [textKinds]float64
	exact, y float64
}

// Observe learns from one call to model. It fails, matching
// ErrInvalidUsage, when Reported is not positive, Overhead or Fixed is
// negative, or the payload's text counts nothing.
func (c *Calibrator) Observe(model string, u Usage) error {
	if u.Reported <= 0 || u.Overhead < 0 || u.Fixed < 0 {
		return fmt.Errorf("%w: reported %d, overhead %d, fixed %d", ErrInvalidUsage, u.Reported, u.Overhead, u.Fixed)
	}
	var x [textKinds]float64
	for _, m := range u.Payload {
		k := c.kinds(m.Text())
		for i := range x {
			x[i] += k[i]
		}
	}
	if x == ([textKinds]float64{}) {
		return fmt.Errorf("%w: the payload has no text to learn from", ErrInvalidUsage)
	}
	exact := float64(u.Fixed + u.Overhead*len(u.Payload))
	y := float64(u.Reported) - exact // what the texts cost the provider

	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.models[model]
	if m == nil {
		m = &calibrated{weight: [textKinds]float64{1, 1, 1, 1, 1}, margin: DefaultCalibrationMargin}
		m.vweight, m.vmargin = m.weight, m.margin
		c.models[model] = m
	}
	m.recent = append(m.recent, observation{x: x, exact: exact, y: float64(u.Reported)})
	if len(m.recent) > calibrationWindow {
		m.recent = m.recent[1:]
	}
	for i := range x {
		for j := range x {
			m.sxx[i][j] = calibrationDecay*m.sxx[i][j] + x[i]*x[j]
		}
		m.sxy[i] = calibrationDecay*m.sxy[i] + x[i]*y
	}
	m.n++
	m.fit()
	moved := math.Abs(m.margin-m.vmargin) > versionStep
	for i := range m.weight {
		moved = moved || math.Abs(m.weight[i]-m.vweight[i]) > versionStep*max(m.vweight[i], 0.01)
	}
	if moved {
		m.version++
		m.vweight, m.vmargin = m.weight, m.margin
	}
	return nil
}

// fit solves the weighted least squares for the weights, pulled towards
// the mean ratio where the observations cannot tell the kinds apart (a
// ridge of 1% of the data's scale), and measures the margin.
func (m *calibrated) fit() {
	var trace, tx, ty float64
	for i := range m.sxy {
		trace += m.sxx[i][i]
		ty += m.sxy[i]
		for j := range m.sxx[i] {
			tx += m.sxx[i][j]
		}
	}
	prior := 1.0
	if tx > 0 {
		prior = ty / tx // one weight for all kinds
	}
	lambda := 0.01 * trace / textKinds
	var a [textKinds][textKinds + 1]float64
	for i := range a {
		for j := 0; j < textKinds; j++ {
			a[i][j] = m.sxx[i][j]
		}
		a[i][i] += lambda
		a[i][textKinds] = m.sxy[i] + lambda*prior
	}
	if w, ok := solve(a); ok {
		for i := range w {
			m.weight[i] = max(w[i], 0)
		}
	}
	if m.n < MinObservations {
		m.margin = DefaultCalibrationMargin
		return
	}
	// The margin: the spread of the recent observations' errors under the
	// weights just fitted.
	errs := make([]float64, len(m.recent))
	var mean, sq float64
	for i, o := range m.recent {
		est := o.exact
		for k := range o.x {
			est += m.weight[k] * o.x[k]
		}
		errs[i] = (o.y - est) / max(est, 1)
		mean += errs[i]
	}
	mean /= float64(len(errs))
	for _, e := range errs {
		sq += (e - mean) * (e - mean)
	}
	sd := math.Sqrt(sq / float64(max(len(errs)-1, 1)))
	m.margin = max(mean+2*sd, minCalibrationMargin)
}

// solve solves a small linear system by Gaussian elimination with partial
// pivoting; ok is false if it is singular.
func solve(a [textKinds][textKinds + 1]float64) (w [textKinds]float64, ok bool) {
	for col := 0; col < textKinds; col++ {
		p := col
		for r := col + 1; r < textKinds; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) < 1e-12 {
			return w, false
		}
		a[col], a[p] = a[p], a[col]
		for r := col + 1; r < textKinds; r++ {
			f := a[r][col] / a[col][col]
			for k := col; k <= textKinds; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	for r := textKinds - 1; r >= 0; r-- {
		s := a[r][textKinds]
		for k := r + 1; k < textKinds; k++ {
			s -= a[r][k] * w[k]
		}
		w[r] = s / a[r][r]
	}
	return w, true
}

// Factor returns model's correction: what a calibrated count of text is
// relative to the base counter's, the margin included (1 +
// DefaultCalibrationMargin before any observation).
func (c *Calibrator) Factor(model, text string) float64 {
	base := c.base.CountTokens(text)
	if base == 0 {
		return 1
	}
	return float64(c.count(model, text)) / float64(base)
}

// Observations returns how many calls to model were observed.
func (c *Calibrator) Observations(model string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.models[model]; m != nil {
		return m.n
	}
	return 0
}

// Counter returns a TokenCounter for model that counts as the Calibrator
// corrects the base counter, with what it learns later as it learns it;
// use it with WithTokenCounter. It is a [tokens.VersionedCounter]: its version
// changes when the correction moves by more than 0.2% (a weight, or the
// margin), and a Compressor then counts its chats again, so a long-lived
// Compressor follows the calibration without recounting on every
// observation once it has settled.
func (c *Calibrator) Counter(model string) TokenCounter {
	return calibratedCounter{c: c, model: model}
}

// calibratedCounter is a Calibrator's counter of one model.
type calibratedCounter struct {
	c     *Calibrator
	model string
}

func (cc calibratedCounter) CountTokens(text string) int { return cc.c.count(cc.model, text) }

// CountVersion returns the version of the model's correction.
func (cc calibratedCounter) CountVersion() uint64 {
	cc.c.mu.Lock()
	defer cc.c.mu.Unlock()
	if m := cc.c.models[cc.model]; m != nil {
		return m.version
	}
	return 0
}

// count returns the calibrated count of text for model.
func (c *Calibrator) count(model, text string) int {
	k := c.kinds(text)
	c.mu.Lock()
	w, margin := [textKinds]float64{1, 1, 1, 1, 1}, DefaultCalibrationMargin
	if m := c.models[model]; m != nil {
		w, margin = m.weight, m.margin
	}
	c.mu.Unlock()
	var est float64
	for i := range k {
		est += w[i] * k[i]
	}
	return int(math.Ceil(est * (1 + margin)))
}

// kinds returns the base counter's count of text shared out among the
// kinds of text by their share of
// its characters (see runeKind).
func (c *Calibrator) kinds(text string) [textKinds]float64 {
	var k [textKinds]float64
	n := c.base.CountTokens(text)
	if n == 0 {
		return k
	}
	var chars [textKinds]int
	all := 0
	for _, r := range text {
		chars[runeKind(r)]++
		all++
	}
	for i := range k {
		k[i] = float64(n) * float64(chars[i]) / float64(all)
	}
	return k
}

// runeKind returns the kind of text r belongs to: ASCII letters, white
// space, digits, other ASCII (punctuation and symbols), the rest.
func runeKind(r rune) int {
	switch {
	case r >= utf8.RuneSelf:
		return 4
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return 0
	case r == ' ', r == '\n', r == '\t', r == '\r':
		return 1
	case r >= '0' && r <= '9':
		return 2
	}
	return 3
}
