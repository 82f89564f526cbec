package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	recapotel "github.com/recapgo/recap/examples/otel"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// telemetry is the server's OpenTelemetry setup: its own providers (no
// global state), metrics for Prometheus at /metrics, spans to an OTLP
// endpoint when one is given.
type telemetry struct {
	tp       trace.TracerProvider
	mp       metric.MeterProvider
	in       *recapotel.Instrumentation
	metrics  http.Handler // nil: no /metrics
	shutdown func(context.Context) error
}

// newTelemetry sets up metrics (if withMetrics) and traces (if endpoint,
// an OTLP/HTTP URL such as http://collector:4318, is set).
func newTelemetry(ctx context.Context, withMetrics bool, endpoint, model, fallbackModel string) (*telemetry, error) {
	t := &telemetry{tp: noop.NewTracerProvider(), mp: metricnoop.NewMeterProvider()}
	var shutdowns []func(context.Context) error
	if withMetrics {
		reg := prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(reg))
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
		t.mp, t.metrics = mp, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
		shutdowns = append(shutdowns, mp.Shutdown)
	}
	if endpoint != "" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
		if err != nil {
			return nil, fmt.Errorf("-otlp-endpoint: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
		t.tp = tp
		shutdowns = append(shutdowns, tp.Shutdown)
	}
	in, err := recapotel.New(
		recapotel.WithTracerProvider(t.tp),
		recapotel.WithMeterProvider(t.mp),
		recapotel.WithModel(model, fallbackModel),
		recapotel.WithChatAttributes(chatAttributes),
	)
	if err != nil {
		return nil, err
	}
	t.in = in
	t.shutdown = func(ctx context.Context) error {
		var first error
		for _, f := range shutdowns {
			if err := f(ctx); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	return t, nil
}

// chatAttributes splits a store key (see storeKey) into the span
// attributes recap.tenant and gen_ai.conversation.id.
func chatAttributes(key string) []attribute.KeyValue {
	tenant, chat, ok := splitStoreKey(key)
	if !ok {
		return []attribute.KeyValue{semconv.GenAIConversationID(key)}
	}
	return []attribute.KeyValue{recapotel.TenantKey.String(tenant), semconv.GenAIConversationID(chat)}
}

// handler wraps h with otelhttp: a span per request, continuing a
// caller's trace (W3C traceparent), and the HTTP server metrics.
func (t *telemetry) handler(h http.Handler) http.Handler {
	h = otelhttp.NewHandler(h, "recap",
		otelhttp.WithTracerProvider(t.tp),
		otelhttp.WithMeterProvider(t.mp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if r.Pattern != "" {
				return r.Pattern // the route, not the chat ID in the path
			}
			return r.Method
		}),
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The Host header (its port included) is the client's: the HTTP
		// metrics label server.address and server.port from it.
		// The path holds the chat's ID: spans carry the route's template
		// instead (the route has matched: r.PathValue still reads it).
		r = r.WithContext(r.Context())
		r.Host = "recap"
		if _, path, ok := strings.Cut(r.Pattern, " "); ok {
			u := *r.URL
			u.Path, u.RawPath = path, ""
			r.URL = &u
		}
		h.ServeHTTP(w, r)
	})
}

// requestIDKey is the context key of a request's ID.
type requestIDKey struct{}

// maxRequestID bounds a client's X-Request-ID that the server adopts.
const maxRequestID = 64

// withRequestID gives each request an ID: the client's X-Request-ID if it
// is short and plain (letters, digits, "-", "_", "."), else a random one.
// It is echoed in the response's X-Request-ID and logged with every line
// about the request (see contextHandler).
func withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if !plainID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-ID", id)
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

func plainID(s string) bool {
	if s == "" || len(s) > maxRequestID {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.", c) >= 0) {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// requestIDFrom returns the request's ID, or "".
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// contextHandler adds to each record logged with a request's context its
// request_id and, when the request is traced, its trace_id.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := requestIDFrom(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}

// newLogger returns the server's logger: JSON lines (format "json") or
// logfmt-like text ("text") on w, with request IDs, the lines about
// rejected requests throttled (see throttle). A duration is logged
// as its String(), "30s" or "1.5ms", in both formats: slog's JSON handler
// would write its nanoseconds (see durationString).
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{ReplaceAttr: durationString}
	var h slog.Handler
	switch format {
	case "json":
		h = slog.NewJSONHandler(w, opts)
	case "text":
		h = slog.NewTextHandler(w, opts)
	default:
		return nil, fmt.Errorf("-log-format %q: want json or text", format)
	}
	return slog.New(newThrottle(contextHandler{h}, time.Now)), nil
}

// durationString is the loggers' ReplaceAttr: a time.Duration attribute
// becomes the string of its String(), whoever logs it (the server, recap
// through recap.WithLogger, net/http through ErrorLog), so that a reader
// of the log sees "grace":"30s", not "grace":30000000000.
func durationString(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

// recordsMetrics reports whether metrics are collected (-metrics): only
// then is each history counted for recap.tokens.saved, a second pass of
// the token counter over the request that the payload does not need.
func (t *telemetry) recordsMetrics() bool { return t.metrics != nil }

// observeConns reports the connections lim closed, by reason ("shed": idle,
// to make room; "refused": over -max-conns-per-ip), as the counter
// recap.server.connections.closed.
func (t *telemetry) observeConns(lim *connLimiter) error {
	_, err := t.mp.Meter("github.com/recapgo/recap/examples/server").Int64ObservableCounter("recap.server.connections.closed",
		metric.WithDescription("Client connections the server closed under pressure: shed (idle, to make room at -max-conns) or refused (over -max-conns-per-ip)."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			shed, refused := lim.counts()
			o.Observe(shed, metric.WithAttributes(attribute.String("reason", "shed")))
			o.Observe(refused, metric.WithAttributes(attribute.String("reason", "refused")))
			return nil
		}))
	return err
}
