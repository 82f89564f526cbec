// Package recapotel reports what a [recap.Compressor] does to
// OpenTelemetry: a span per Summarizer call, made from recap's hooks
// ([Instrumentation.Hooks]), and metrics of the summarizations and of the
// Compress calls a program records ([Instrumentation.RecordCompress]).
//
// Spans and metrics use the names of OpenTelemetry's semantic conventions
// for generative AI where they fit (gen_ai.operation.name,
// gen_ai.request.model, gen_ai.conversation.id, gen_ai.usage.input_tokens,
// gen_ai.usage.output_tokens, error.type; the histograms
// gen_ai.client.token.usage and gen_ai.client.operation.duration) and
// recap.* names for the rest:
//
//   - recap.compress.requests: Compress calls, by recap.outcome
//     (summarized, scheduled, absorbed_failure, unchanged, error);
//   - recap.summarizations: Summarizer calls, by recap.outcome (ok, error),
//     recap.fallback and recap.background;
//   - recap.absorbed_failures: summarizer or store failures that Compress
//     absorbed, serving a usable payload;
//   - recap.tokens.saved: tokens of the histories given to Compress that
//     their payloads did not carry;
//   - recap.circuit.state: a circuit breaker's state (0 closed, 1 open,
//     2 half-open), when a program registers one ([Instrumentation.ObserveCircuit]).
//
// Metric attributes carry no chat ID and no tenant (unbounded, and not for
// a metrics endpoint's readers); spans carry both.
package recapotel

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/recapgo/recap"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/recapgo/recap/examples/otel"

// Attribute keys of recap's own.
const (
	OutcomeKey    = attribute.Key("recap.outcome")
	FallbackKey   = attribute.Key("recap.fallback")
	BackgroundKey = attribute.Key("recap.background")
	MessagesKey   = attribute.Key("recap.messages")
	TenantKey     = attribute.Key("recap.tenant")
)

// Outcomes of a Compress call (recap.outcome of recap.compress.requests).
const (
	OutcomeSummarized      = "summarized"       // a new summary was saved
	OutcomeScheduled       = "scheduled"        // a background summarization is pending or running
	OutcomeAbsorbedFailure = "absorbed_failure" // Result.Err: the payload is usable, no new summary
	OutcomeUnchanged       = "unchanged"        // nothing to summarize
	OutcomeError           = "error"            // Compress returned an error
)

// Option configures New.
type Option func(*config)

type config struct {
	tp            trace.TracerProvider
	mp            metric.MeterProvider
	model         string
	fallbackModel string
	chatAttrs     func(chatID string) []attribute.KeyValue
}

// WithTracerProvider sets where spans go. The default is otel's global
// TracerProvider.
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets where metrics go. The default is otel's global
// MeterProvider.
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithModel names the model of the main Summarizer (gen_ai.request.model)
// and, if fallback is not empty, of the fallback Summarizer
// (recap.WithFallbackSummarizer). Without a model, spans are named
// "recap.summarize" rather than "chat MODEL".
func WithModel(model, fallback string) Option {
	return func(c *config) { c.model, c.fallbackModel = model, fallback }
}

// WithChatAttributes sets the span attributes of a chat ID, as Compress
// was given it. The default is gen_ai.conversation.id set to the chat ID;
// a service whose chat IDs hold a tenant splits them here (recap.tenant
// and gen_ai.conversation.id). Attributes it returns go on spans only.
func WithChatAttributes(f func(chatID string) []attribute.KeyValue) Option {
	return func(c *config) { c.chatAttrs = f }
}

// Instrumentation holds the tracer and the metric instruments. It is safe
// for concurrent use by multiple goroutines.
type Instrumentation struct {
	cfg    config
	tracer trace.Tracer
	meter  metric.Meter

	requests   metric.Int64Counter
	summarizes metric.Int64Counter
	absorbed   metric.Int64Counter
	saved      metric.Int64Counter
	tokenUsage metric.Int64Histogram
	opDuration metric.Float64Histogram
}

// New returns an Instrumentation, or an error if an instrument could not
// be made.
func New(opts ...Option) (*Instrumentation, error) {
	cfg := config{chatAttrs: func(id string) []attribute.KeyValue { return []attribute.KeyValue{semconv.GenAIConversationID(id)} }}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.tp == nil || isNil(cfg.tp) {
		cfg.tp = otel.GetTracerProvider()
	}
	if cfg.mp == nil || isNil(cfg.mp) {
		cfg.mp = otel.GetMeterProvider()
	}
	if cfg.chatAttrs == nil {
		return nil, errors.New("recapotel: nil WithChatAttributes function")
	}
	in := &Instrumentation{cfg: cfg, tracer: cfg.tp.Tracer(ScopeName), meter: cfg.mp.Meter(ScopeName)}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	in.requests, err = in.meter.Int64Counter("recap.compress.requests", metric.WithUnit("{request}"),
		metric.WithDescription("Compress calls, by outcome"))
	add(err)
	in.summarizes, err = in.meter.Int64Counter("recap.summarizations", metric.WithUnit("{call}"),
		metric.WithDescription("Summarizer calls, by outcome, fallback and background"))
	add(err)
	in.absorbed, err = in.meter.Int64Counter("recap.absorbed_failures", metric.WithUnit("{failure}"),
		metric.WithDescription("summarizer or store failures that Compress absorbed, serving a usable payload"))
	add(err)
	in.saved, err = in.meter.Int64Counter("recap.tokens.saved", metric.WithUnit("{token}"),
		metric.WithDescription("tokens of the histories given to Compress that their payloads did not carry"))
	add(err)
	in.tokenUsage, err = in.meter.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("tokens in and out of each Summarizer call"),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864))
	add(err)
	in.opDuration, err = in.meter.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("duration of each Summarizer call"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	add(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("recapotel: %w", err)
	}
	return in, nil
}

// isNil reports whether v is an interface holding a nil pointer.
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// spanKey is the context key of the span that SummarizeStart began, so
// that SummarizeEnd ends that one and never a caller's.
type spanKey struct{}

// Hooks returns the hooks to give recap.WithHooks: SummarizeStart starts a
// span (a child of the context's span: the request's, or the background
// task's context as the scheduler gave it), SummarizeEnd ends it and
// records the call's metrics. With WithBackground, they run on the task's
// goroutine.
func (in *Instrumentation) Hooks() recap.Hooks {
	return recap.Hooks{
		SummarizeStart: in.summarizeStart,
		SummarizeEnd:   in.summarizeEnd,
	}
}

func (in *Instrumentation) modelOf(e recap.SummarizeEvent) string {
	if e.Fallback {
		return in.cfg.fallbackModel
	}
	return in.cfg.model
}

func (in *Instrumentation) summarizeStart(ctx context.Context, e recap.SummarizeEvent) context.Context {
	model := in.modelOf(e)
	name, kind := "recap.summarize", trace.SpanKindInternal
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		MessagesKey.Int(e.Messages),
		semconv.GenAIUsageInputTokens(e.InputTokens),
		FallbackKey.Bool(e.Fallback),
		BackgroundKey.Bool(e.Background),
	}
	if model != "" {
		name, kind = "chat "+model, trace.SpanKindClient
		attrs = append(attrs, semconv.GenAIRequestModel(model))
	}
	attrs = append(attrs, in.cfg.chatAttrs(e.ChatID)...)
	ctx, span := in.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, spanKey{}, span)
}

func (in *Instrumentation) summarizeEnd(ctx context.Context, e recap.SummarizeEvent) {
	model := in.modelOf(e)
	outcome := "ok"
	if e.Err != nil {
		outcome = OutcomeError
	}
	if span, ok := ctx.Value(spanKey{}).(trace.Span); ok {
		span.SetAttributes(semconv.GenAIUsageOutputTokens(e.OutputTokens))
		if e.Err != nil {
			// The type, not the text: a provider's error may quote the
			// request or the account.
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(e.Err)))
			span.SetStatus(codes.Error, errorType(e.Err))
		}
		span.End()
	}
	common := []attribute.KeyValue{semconv.GenAIOperationNameChat}
	if model != "" {
		common = append(common, semconv.GenAIRequestModel(model))
	}
	if e.Err != nil {
		common = append(common, semconv.ErrorTypeKey.String(errorType(e.Err)))
	}
	in.summarizes.Add(ctx, 1, metric.WithAttributes(OutcomeKey.String(outcome), FallbackKey.Bool(e.Fallback), BackgroundKey.Bool(e.Background)))
	in.opDuration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(common...))
	in.tokenUsage.Record(ctx, int64(e.InputTokens), metric.WithAttributes(append(common, semconv.GenAITokenTypeInput)...))
	if e.Err == nil {
		in.tokenUsage.Record(ctx, int64(e.OutputTokens), metric.WithAttributes(append(common, semconv.GenAITokenTypeOutput)...))
	}
}

// errorType is the error.type of a summarizer's error: recap's sentinels
// and the context's errors by name, anything else "_OTHER" (an error's
// text may hold what a metric must not).
func errorType(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{context.DeadlineExceeded, "timeout"},
		{context.Canceled, "canceled"},
		{recap.ErrEmptySummary, "empty_summary"},
		{recap.ErrSummaryTooLong, "summary_too_long"},
		{recap.ErrSummarizerPanic, "summarizer_panic"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	var status interface{ StatusCode() int }
	if errors.As(err, &status) {
		return fmt.Sprint(status.StatusCode())
	}
	return "_OTHER"
}

// RecordCompress records one Compress call: its outcome, an absorbed
// failure, and the tokens saved, historyTokens (the size of the messages
// given to Compress, counted as recap counts them) less the payload's.
// err is Compress's error; res is then ignored.
func (in *Instrumentation) RecordCompress(ctx context.Context, res recap.Result, err error, historyTokens int) {
	outcome := OutcomeUnchanged
	switch {
	case err != nil:
		outcome = OutcomeError
	case res.Err != nil:
		outcome = OutcomeAbsorbedFailure
	case res.Summarized:
		outcome = OutcomeSummarized
	case res.Scheduled:
		outcome = OutcomeScheduled
	}
	in.requests.Add(ctx, 1, metric.WithAttributes(OutcomeKey.String(outcome)))
	if err != nil {
		return
	}
	if res.Err != nil {
		in.absorbed.Add(ctx, 1)
	}
	if saved := historyTokens - res.PayloadTokens; saved > 0 {
		in.saved.Add(ctx, int64(saved))
	}
}

// Circuit states reported by recap.circuit.state.
const (
	CircuitClosed   = 0
	CircuitOpen     = 1
	CircuitHalfOpen = 2
)

// ObserveCircuit reports state (one of the Circuit constants) as the gauge
// recap.circuit.state, read at each collection, with name as the
// recap.circuit attribute.
func (in *Instrumentation) ObserveCircuit(name string, state func() int64) error {
	if state == nil {
		return errors.New("recapotel: nil circuit state")
	}
	g, err := in.meter.Int64ObservableGauge("recap.circuit.state", metric.WithUnit("{state}"),
		metric.WithDescription("circuit breaker state: 0 closed, 1 open, 2 half-open"))
	if err != nil {
		return fmt.Errorf("recapotel: %w", err)
	}
	attrs := metric.WithAttributes(attribute.String("recap.circuit", name))
	_, err = in.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(g, state(), attrs)
		return nil
	}, g)
	if err != nil {
		return fmt.Errorf("recapotel: %w", err)
	}
	return nil
}
