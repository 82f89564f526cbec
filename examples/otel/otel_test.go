package recapotel_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap"
	recapotel "github.com/recapgo/recap/examples/otel"
	"github.com/recapgo/recap/tokens"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	in     *recapotel.Instrumentation
}

func newTelemetry(t *testing.T, opts ...recapotel.Option) *telemetry {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	opts = append([]recapotel.Option{
		recapotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
		recapotel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
	}, opts...)
	in, err := recapotel.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &telemetry{spans, reader, in}
}

// sums returns the int64 sums of the counters, by metric name and
// attribute set ("name{k=v,...}").
func (tel *telemetry) sums(t *testing.T) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name+attrString(p.Attributes)] += p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[m.Name+attrString(p.Attributes)] = p.Value
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out[m.Name+".count"+attrString(p.Attributes)] += int64(p.Count)
					out[m.Name+".sum"+attrString(p.Attributes)] += p.Sum
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name+".count"+attrString(p.Attributes)] += int64(p.Count)
				}
			}
		}
	}
	return out
}

func attrString(s attribute.Set) string {
	var kv []string
	for _, a := range s.ToSlice() {
		kv = append(kv, string(a.Key)+"="+a.Value.Emit())
	}
	sort.Strings(kv)
	return "{" + strings.Join(kv, ",") + "}"
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, a := range s.Attributes() {
		out[string(a.Key)] = a.Value.Emit()
	}
	return out
}

func chat(n int) []recap.Message {
	var msgs []recap.Message
	for i := 1; i <= n; i++ {
		msgs = append(msgs,
			recap.Message{ID: fmt.Sprintf("u%d", i), Role: recap.RoleUser, Content: fmt.Sprintf("Question %d about the deploy of service number %d and its error budget.", i, i*3)},
			recap.Message{ID: fmt.Sprintf("a%d", i), Role: recap.RoleAssistant, Content: fmt.Sprintf("Answer %d: the error rate rose to %d per minute after the deploy.", i, i*11)})
	}
	return append(msgs, recap.Message{ID: "now", Role: recap.RoleUser, Content: "And now?"})
}

func historyTokens(t *testing.T, msgs []recap.Message) int {
	tc, err := tokens.NewTiktoken(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		n += tc.CountTokens(m.Text())
	}
	return n
}

// TestSpansAndMetrics: a summarization, a failure absorbed by the
// fallback, and a call with nothing to do, as spans and metrics.
func TestSpansAndMetrics(t *testing.T) {
	tel := newTelemetry(t, recapotel.WithModel("gpt-4o-mini", "extractive"),
		recapotel.WithChatAttributes(func(id string) []attribute.KeyValue {
			tenant, chat, _ := strings.Cut(id, "/")
			return []attribute.KeyValue{recapotel.TenantKey.String(tenant), attribute.String("gen_ai.conversation.id", chat)}
		}))
	fail := false
	main := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		if fail {
			return "", fmt.Errorf("provider: %w", context.DeadlineExceeded)
		}
		return "The user asked about deploys; errors rose.", nil
	})
	fallback := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "Deploys were discussed.", nil
	})
	c, err := recap.New(main, recap.NewMemoryStore(), recap.WithTriggerTokens(100),
		recap.WithFallbackSummarizer(fallback), recap.WithHooks(tel.in.Hooks()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	compress := func(id string, msgs []recap.Message) recap.Result {
		res, err := c.Compress(ctx, id, msgs)
		tel.in.RecordCompress(ctx, res, err, historyTokens(t, msgs))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	msgs := chat(10)
	res := compress("acme/c1", msgs)
	if !res.Summarized {
		t.Fatal("not summarized")
	}
	compress("acme/c1", msgs) // nothing new to summarize
	fail = true
	if res := compress("acme/c2", msgs); res.Err == nil || !res.Fallback {
		t.Fatalf("want a failure absorbed by the fallback: %+v", res.Err)
	}
	_, err = c.Compress(ctx, "acme/c3", nil)
	tel.in.RecordCompress(ctx, recap.Result{}, err, 0)

	spans := tel.spans.Ended()
	var got []string
	for _, s := range spans {
		a := spanAttrs(s)
		got = append(got, fmt.Sprintf("%s kind=%v tenant=%s chat=%s model=%s fallback=%s error=%s status=%v in>0=%v out>0=%v",
			s.Name(), s.SpanKind(), a["recap.tenant"], a["gen_ai.conversation.id"], a["gen_ai.request.model"], a["recap.fallback"],
			a["error.type"], s.Status().Code, a["gen_ai.usage.input_tokens"] != "0", a["gen_ai.usage.output_tokens"] != "0"))
	}
	want := []string{
		"chat gpt-4o-mini kind=client tenant=acme chat=c1 model=gpt-4o-mini fallback=false error= status=Unset in>0=true out>0=true",
		"chat gpt-4o-mini kind=client tenant=acme chat=c2 model=gpt-4o-mini fallback=false error=timeout status=Error in>0=true out>0=false",
		"chat extractive kind=client tenant=acme chat=c2 model=extractive fallback=true error= status=Unset in>0=true out>0=true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	for _, s := range spans {
		if s.Status().Code == codes.Error && strings.Contains(s.Status().Description, "acme") {
			t.Errorf("span status quotes the chat: %q", s.Status().Description)
		}
	}

	sums := tel.sums(t)
	saved := sums["recap.tokens.saved{}"]
	wantSums := map[string]int64{
		"recap.compress.requests{recap.outcome=summarized}":                                                                                       1,
		"recap.compress.requests{recap.outcome=unchanged}":                                                                                        1,
		"recap.compress.requests{recap.outcome=absorbed_failure}":                                                                                 1,
		"recap.compress.requests{recap.outcome=error}":                                                                                            1,
		"recap.absorbed_failures{}":                                                                                                               1,
		"recap.summarizations{recap.background=false,recap.fallback=false,recap.outcome=ok}":                                                      1,
		"recap.summarizations{recap.background=false,recap.fallback=false,recap.outcome=error}":                                                   1,
		"recap.summarizations{recap.background=false,recap.fallback=true,recap.outcome=ok}":                                                       1,
		"gen_ai.client.token.usage.count{gen_ai.operation.name=chat,gen_ai.request.model=gpt-4o-mini,gen_ai.token.type=input}":                    1,
		"gen_ai.client.token.usage.count{gen_ai.operation.name=chat,gen_ai.request.model=gpt-4o-mini,gen_ai.token.type=output}":                   1,
		"gen_ai.client.token.usage.count{error.type=timeout,gen_ai.operation.name=chat,gen_ai.request.model=gpt-4o-mini,gen_ai.token.type=input}": 1,
		"gen_ai.client.token.usage.count{gen_ai.operation.name=chat,gen_ai.request.model=extractive,gen_ai.token.type=input}":                     1,
		"gen_ai.client.token.usage.count{gen_ai.operation.name=chat,gen_ai.request.model=extractive,gen_ai.token.type=output}":                    1,
	}
	for k, v := range wantSums {
		if sums[k] != v {
			t.Errorf("%s = %d, want %d", k, sums[k], v)
		}
	}
	// Three payloads after summaries (two of c1, one of c2) each left out
	// most of a history of 21 messages.
	if h := int64(historyTokens(t, msgs)); saved < 3*h/2 || saved > 3*h {
		t.Errorf("tokens saved %d, want between half and all of 3 histories of %d", saved, h)
	}
	for k := range sums {
		if strings.Contains(k, "acme") || strings.Contains(k, "c1") {
			t.Errorf("a metric carries a tenant or chat: %s", k)
		}
	}
}

// TestBackgroundSpansPair: with background summarizations of many chats
// running at once, each span ends once, with its own chat's attributes,
// as a child of the task's context and not of a request's.
func TestBackgroundSpansPair(t *testing.T) {
	tel := newTelemetry(t)
	sum := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "summary of " + req.ChatID, nil
	})
	var wg sync.WaitGroup
	run := func(task func(context.Context)) {
		wg.Add(1)
		go func() { defer wg.Done(); task(context.Background()) }()
	}
	c, err := recap.New(sum, recap.NewMemoryStore(), recap.WithTriggerTokens(100), recap.WithBackground(run), recap.WithHooks(tel.in.Hooks()))
	if err != nil {
		t.Fatal(err)
	}
	const chats = 50
	var callers sync.WaitGroup
	for i := range chats {
		callers.Add(1)
		go func() {
			defer callers.Done()
			if _, err := c.Compress(context.Background(), fmt.Sprintf("chat-%d", i), chat(8)); err != nil {
				t.Error(err)
			}
		}()
	}
	callers.Wait()
	if err := c.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	seen := map[string]int{}
	for _, s := range tel.spans.Ended() {
		a := spanAttrs(s)
		if s.Name() != "recap.summarize" || a["recap.background"] != "true" || s.Parent().IsValid() {
			t.Errorf("span %s %v parent %v", s.Name(), a, s.Parent())
		}
		seen[a["gen_ai.conversation.id"]]++
	}
	if len(seen) != chats {
		t.Errorf("spans of %d chats, want %d", len(seen), chats)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s: %d spans", id, n)
		}
	}
	if started := len(tel.spans.Started()); started != chats {
		t.Errorf("%d spans started, want %d (each ended once)", started, chats)
	}
}

// TestObserveCircuit: the gauge reads the state at each collection.
func TestObserveCircuit(t *testing.T) {
	tel := newTelemetry(t)
	state := int64(recapotel.CircuitClosed)
	if err := tel.in.ObserveCircuit("llm", func() int64 { return state }); err != nil {
		t.Fatal(err)
	}
	key := "recap.circuit.state{recap.circuit=llm}"
	if got := tel.sums(t)[key]; got != recapotel.CircuitClosed {
		t.Errorf("closed: %d", got)
	}
	state = recapotel.CircuitOpen
	if got := tel.sums(t)[key]; got != recapotel.CircuitOpen {
		t.Errorf("open: %d", got)
	}
	if err := tel.in.ObserveCircuit("x", nil); err == nil {
		t.Error("nil state accepted")
	}
}

// TestHooksKeepCallerSpan: SummarizeEnd ends the span that SummarizeStart
// began, never the caller's, even when handed a context without it.
func TestHooksKeepCallerSpan(t *testing.T) {
	tel := newTelemetry(t)
	h := tel.in.Hooks()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	h.SummarizeEnd(ctx, recap.SummarizeEvent{ChatID: "c", Err: errors.New("x")}) // no start: nothing to end
	sctx := h.SummarizeStart(ctx, recap.SummarizeEvent{ChatID: "c"})
	h.SummarizeEnd(sctx, recap.SummarizeEvent{ChatID: "c", OutputTokens: 7})
	ended := tel.spans.Ended()
	if len(ended) != 1 || ended[0].Name() != "recap.summarize" || ended[0].Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("ended %d spans: %v", len(ended), ended)
	}
	parent.End()
}
