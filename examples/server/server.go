package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/recapgo/recap"
)

// MaxBodyBytes bounds a request body: 8 MiB, a long chat with tool output.
const MaxBodyBytes = 8 << 20

// NewServer returns the service's HTTP handler: the routes of routes.go.
// c compresses chats for /api/chats/{id}/payload, sum serves
// /api/summarize, and timeout bounds each request's summarizing and store
// calls. Rejected requests are logged to log at Info, failures at Warn or
// Error.
func NewServer(log *slog.Logger, c *recap.Compressor, sum recap.Summarizer, timeout time.Duration) http.Handler {
	mux := http.NewServeMux()
	addRoutes(mux, log, c, sum, timeout)
	return mux
}

type messagesRequest struct {
	Messages []recap.Message `json:"messages"`
}

type summarizeResponse struct {
	Summary string `json:"summary"`
}

type payloadResponse struct {
	Payload       []recap.Message `json:"payload"`
	PayloadTokens int             `json:"payloadTokens"`
	Summary       recap.Summary   `json:"summary"`
	Boundary      string          `json:"boundary"`
	Summarized    bool            `json:"summarized"`
	Stale         bool            `json:"stale,omitempty"`
	Dropped       []string        `json:"dropped,omitempty"`
	// Warning is a failure recap absorbed: the payload is still usable.
	Warning string `json:"warning,omitempty"`
}

type errorResponse struct {
	Error string `json:"error"`
}

// handleSummarize serves the seed client's endpoint: the messages to
// summarize, the old summary first as a system message when there is one.
func handleSummarize(log *slog.Logger, sum recap.Summarizer, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decode(log, w, r)
		if !ok {
			return
		}
		msgs := req.Messages
		if len(msgs) == 0 {
			fail(log, w, r, http.StatusBadRequest, "messages: must not be empty")
			return
		}
		for i, m := range msgs {
			if err := checkMessage(m); err != nil {
				fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("messages[%d]: %v", i, err))
				return
			}
		}
		sr := recap.SummarizeRequest{ChatID: "", Messages: msgs}
		if msgs[0].Role == recap.RoleSystem {
			sr.Previous, sr.Messages = msgs[0].Text(), msgs[1:]
		}
		if len(sr.Messages) == 0 {
			fail(log, w, r, http.StatusBadRequest, "messages: nothing to summarize after the previous summary")
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		text, err := sum.Summarize(ctx, sr)
		if err == nil && strings.TrimSpace(text) == "" {
			err = recap.ErrEmptySummary
		}
		if err != nil {
			log.Warn("summarize failed", "err", err)
			fail(log, w, r, http.StatusBadGateway, "summarizer: "+err.Error())
			return
		}
		reply(log, w, http.StatusOK, summarizeResponse{Summary: strings.TrimSpace(text)})
	})
}

// handlePayload runs the rolling compression of a chat and answers with the
// payload to send to the LLM.
func handlePayload(log *slog.Logger, c *recap.Compressor, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if id == "" || len(id) > 200 {
			fail(log, w, r, http.StatusBadRequest, "chat id: must be 1 to 200 bytes")
			return
		}
		req, ok := decode(log, w, r)
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		res, err := c.Compress(ctx, id, req.Messages)
		var me *recap.MessageError
		switch {
		case errors.As(err, &me):
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("messages[%d]: %s", me.Index, me.Reason))
			return
		case errors.Is(err, recap.ErrNoMessages):
			fail(log, w, r, http.StatusBadRequest, "messages: must not be empty")
			return
		case errors.Is(err, recap.ErrNoUserMessage):
			fail(log, w, r, http.StatusBadRequest, "messages: no user message starts a turn")
			return
		case errors.Is(err, recap.ErrBudget):
			fail(log, w, r, http.StatusRequestEntityTooLarge, err.Error())
			return
		case errors.Is(err, context.DeadlineExceeded):
			fail(log, w, r, http.StatusGatewayTimeout, "timed out")
			return
		case err != nil:
			log.Error("compress failed", "chat", id, "err", err)
			fail(log, w, r, http.StatusInternalServerError, "store unavailable")
			return
		}
		out := payloadResponse{
			Payload: res.Payload, PayloadTokens: res.PayloadTokens, Summary: res.Summary,
			Boundary: res.Summary.LastMessageID, Summarized: res.Summarized, Stale: res.Stale,
		}
		for _, m := range res.Dropped {
			out.Dropped = append(out.Dropped, m.ID)
		}
		if res.Err != nil {
			out.Warning = res.Err.Error()
		}
		reply(log, w, http.StatusOK, out)
	})
}

func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
}

// decode reads a {"messages": [...]} body, answering 4xx errors that name
// the offending field.
func decode(log *slog.Logger, w http.ResponseWriter, r *http.Request) (messagesRequest, bool) {
	var req messagesRequest
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		fail(log, w, r, http.StatusUnsupportedMediaType, "content type must be application/json")
		return req, false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	var (
		maxErr  *http.MaxBytesError
		typeErr *json.UnmarshalTypeError
		syntax  *json.SyntaxError
	)
	switch {
	case err == nil && req.Messages == nil:
		fail(log, w, r, http.StatusBadRequest, "messages: required")
	case err == nil:
		return req, true
	case errors.As(err, &maxErr):
		fail(log, w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("body: larger than %d bytes", MaxBodyBytes))
	case errors.As(err, &typeErr):
		fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("%s: expected %s, got JSON %s", fieldPath(typeErr), typeErr.Type, typeErr.Value))
	case errors.As(err, &syntax):
		fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("body: invalid JSON at byte %d: %v", syntax.Offset, err))
	case errors.Is(err, io.EOF):
		fail(log, w, r, http.StatusBadRequest, "body: empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		fail(log, w, r, http.StatusBadRequest, "body: invalid JSON: it ends too early")
	default:
		// Unknown fields, and recap's own decoding errors such as a
		// message whose content is not a string.
		fail(log, w, r, http.StatusBadRequest, "body: "+strings.TrimPrefix(err.Error(), "json: "))
	}
	return req, false
}

func fieldPath(e *json.UnmarshalTypeError) string {
	if e.Field == "" {
		return "body"
	}
	return e.Field
}

// checkMessage validates what /api/summarize needs of a message.
func checkMessage(m recap.Message) error {
	switch m.Role {
	case recap.RoleSystem, recap.RoleUser, recap.RoleAssistant, recap.RoleTool:
	default:
		return fmt.Errorf("role: unknown role %q", m.Role)
	}
	return nil
}

func reply(log *slog.Logger, w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Warn("write response", "err", err)
	}
}

func fail(log *slog.Logger, w http.ResponseWriter, r *http.Request, status int, msg string) {
	log.Info("request rejected", "method", r.Method, "path", r.URL.Path, "status", status, "error", msg)
	reply(log, w, status, errorResponse{Error: msg})
}
