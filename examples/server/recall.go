package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/recapgo/recap"
)

// recallRequest is the body of POST /api/chats/{id}/recall.
type recallRequest struct {
	Query string `json:"query"`
	// K is how many excerpts to answer, 1 to recap.MaxRecallToolResults;
	// 0 or absent: recap.DefaultRecallResults.
	K int `json:"k"`
	// Messages, optional, are the client's messages (its history, or the
	// payload it keeps), searched with the archive.
	Messages []recap.Message `json:"messages"`
}

// recallResponse is its answer.
type recallResponse struct {
	Excerpts []recallExcerpt `json:"excerpts"`
	// Text is the excerpts as the recall tool gives them to a model
	// (recap.RecallText).
	Text string `json:"text"`
}

// recallExcerpt is a recap.Excerpt on the wire.
type recallExcerpt struct {
	ID       string     `json:"id"`
	Role     recap.Role `json:"role"`
	Position int        `json:"position"`
	Text     string     `json:"text"`
	Score    float64    `json:"score"`
}

// recallQueryID is the ID of the query, put last as the chat's current
// turn when the request sends no messages: recap never searches the
// current turn, so the archive's last user message is searched too.
const recallQueryID = "recap-recall-query"

// handleRecall answers POST /api/chats/{id}/recall {"query", "k",
// "messages"} with the passages of the tenant's chat that match the query
// best: from the messages the archive keeps of the chat (those its
// summaries covered, see archive) and from the request's messages, which
// recap.Recall searches where the chat's stored summary covers them. A
// query without words is a 400; a chat with nothing to search answers no
// excerpts.
func handleRecall(log *slog.Logger, st recap.Store, cfg Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := chatID(r.PathValue("id"), "")
		if err != nil {
			fail(log, w, r, http.StatusBadRequest, err.Error())
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
			fail(log, w, r, http.StatusUnsupportedMediaType, "content type must be application/json")
			return
		}
		var req recallRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err := dec.Decode(&req); err != nil {
			_, _, status, msg := readError(err)
			fail(log, w, r, status, msg)
			return
		}
		switch {
		case len(req.Messages) > cfg.MaxMessages:
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("messages: more than %d", cfg.MaxMessages))
			return
		case req.K < 0 || req.K > recap.MaxRecallToolResults:
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("k: must be 1 to %d", recap.MaxRecallToolResults))
			return
		}
		if req.K == 0 {
			req.K = recap.DefaultRecallResults
		}
		ctx, cancel := context.WithTimeout(r.Context(), cfg.Timeout)
		defer cancel()
		key := storeKey(tenantFrom(r.Context()), id)
		s, err := st.Load(ctx, key)
		if err != nil {
			if r.Context().Err() != nil {
				clientGone(log, w, r, err)
				return
			}
			log.ErrorContext(r.Context(), "load summary failed", "chat", id, "tenant", tenantFrom(r.Context()), "err", err)
			fail(log, w, r, http.StatusServiceUnavailable, "store unavailable")
			return
		}
		msgs, archived, err := recallChat(ctx, cfg.Archive, key, req)
		if err != nil {
			log.ErrorContext(r.Context(), "archive read failed", "chat", id, "tenant", tenantFrom(r.Context()), "err", err)
			fail(log, w, r, http.StatusServiceUnavailable, "store unavailable")
			return
		}
		found, err := recap.Recall(msgs, s, req.Query, recap.RecallResults(req.K), recap.RecallDropped(archived))
		var me *recap.MessageError
		switch {
		case errors.Is(err, recap.ErrNoQuery):
			fail(log, w, r, http.StatusBadRequest, "query: has no words to search")
			return
		case errors.As(err, &me):
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("messages: %s", strings.TrimPrefix(me.Error(), "recap: ")))
			return
		case errors.Is(err, recap.ErrNoUserMessage):
			found = nil // a history without a user message: nothing it covers
		case err != nil:
			fail(log, w, r, http.StatusBadRequest, strings.TrimPrefix(err.Error(), "recap: "))
			return
		}
		out := recallResponse{Excerpts: []recallExcerpt{}, Text: recap.RecallText(req.Query, found, len(msgs))}
		for _, e := range found {
			out.Excerpts = append(out.Excerpts, recallExcerpt{ID: e.MessageID, Role: e.Role, Position: e.Position, Text: e.Text, Score: e.Score})
		}
		reply(log, w, http.StatusOK, out)
	})
}

// recallChat returns the chat recall searches: the archive's messages of
// key, then the request's messages not among them (by the IDs recap gives
// them), or the query as the current turn if the request has none; and
// the archived messages, searchable whatever the summary says (a summary
// Forget withdrew covers none of them).
func recallChat(ctx context.Context, ar archive, key string, req recallRequest) (msgs, archived []recap.Message, err error) {
	if ar != nil {
		if archived, err = ar.Messages(ctx, key); err != nil {
			return nil, nil, err
		}
	}
	have := make(map[string]bool, len(archived))
	for _, m := range archived {
		have[m.ID] = true
	}
	msgs = append(msgs, archived...)
	for _, m := range recap.ChainIDs(req.Messages) {
		if !have[m.ID] {
			msgs = append(msgs, m)
		}
	}
	if len(req.Messages) == 0 {
		msgs = append(msgs, recap.Message{ID: recallQueryID, Role: recap.RoleUser, Content: req.Query})
	}
	return msgs, archived, nil
}

// handleDeleteMessage answers DELETE /api/chats/{id}/messages/{mid}: the
// message mid of the tenant's chat leaves the archive, and the summary
// that covers it is withdrawn (recap.Compressor.Forget: an echo client
// cannot send its history without the message for recap to fold it
// again). 204 when either knew it, 404 when neither did.
func handleDeleteMessage(log *slog.Logger, c *recap.Compressor, cfg Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := chatID(r.PathValue("id"), "")
		if err != nil {
			fail(log, w, r, http.StatusBadRequest, err.Error())
			return
		}
		mid := r.PathValue("mid")
		limit := cfg.MaxIDBytes
		if limit == 0 {
			limit = DefaultMaxIDBytes
		}
		if mid == "" || len(mid) > limit {
			fail(log, w, r, http.StatusBadRequest, fmt.Sprintf("message id: must be 1 to %d bytes", limit))
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), cfg.Timeout)
		defer cancel()
		key := storeKey(tenantFrom(r.Context()), id)
		archived := false
		if cfg.Archive != nil {
			archived, err = cfg.Archive.Remove(ctx, key, mid)
		}
		withdrawn := false
		if err == nil {
			withdrawn, err = c.Forget(ctx, key, mid)
		}
		switch {
		case err != nil && r.Context().Err() != nil:
			clientGone(log, w, r, err)
		case errors.Is(err, recap.ErrConflict):
			fail(log, w, r, http.StatusConflict, "the summary keeps changing: try again")
		case err != nil:
			log.ErrorContext(r.Context(), "forget failed", "chat", id, "tenant", tenantFrom(r.Context()), "err", err)
			fail(log, w, r, http.StatusServiceUnavailable, "store unavailable")
		case !archived && !withdrawn:
			fail(log, w, r, http.StatusNotFound, "no summary or archive of this chat holds that message")
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
}
