package recap

import (
	"errors"
	"fmt"
)

// Errors that callers branch on with [errors.Is].
var (
	// ErrNoMessages is returned for an empty message list.
	ErrNoMessages = errors.New("recap: no messages")

	// ErrInvalidMessage is matched by a [*MessageError]: an AI SDK
	// UIMessage without an ID (other formats need none), a duplicate ID,
	// an unknown role, or a tool result whose tool call is not before it
	// in the chat (an orphan, in any format).
	ErrInvalidMessage = errors.New("recap: invalid message")

	// ErrNoUserMessage is returned when no user message follows the pinned
	// system messages, so there is no current turn.
	ErrNoUserMessage = errors.New("recap: no user message to start a turn")

	// ErrConflict is returned by [Store.Save] when the stored summary is no
	// longer the one the caller read: another writer saved first.
	ErrConflict = errors.New("recap: summary changed since it was loaded")

	// ErrEmptySummary reports a Summarizer that returned only white space.
	// Compress absorbs it into [Result.Err] and stores nothing.
	ErrEmptySummary = errors.New("recap: summarizer returned an empty summary")

	// ErrInvalidOption is matched by every error that [New] and
	// [OptionsFromEnv] return for a bad option value.
	ErrInvalidOption = errors.New("recap: invalid option")

	// ErrSummaryTooLong reports a summary over WithMaxSummaryTokens, twice,
	// or longer in tokens than what it summarizes, which is no compression
	// (a summary of at most 64 tokens is always accepted, so that a tiny
	// input does not block progress). Compress absorbs it into
	// [Result.Err] and stores nothing.
	ErrSummaryTooLong = errors.New("recap: summary too long")
	// ErrBackoff reports that the Summarizer sat out a request of a chat
	// whose summarizations failed in a row (see Compressor.Compress): the
	// fallback Summarizer, if any, made the summary, or the payload is the
	// unsummarized one. Result.Err wraps it with the last failure.
	ErrBackoff = errors.New("recap: summarizer backed off after failures")

	// ErrSummarizerPanic reports a Summarizer that panicked. Compress
	// recovers the panic and absorbs it like any summarizer failure, so
	// that one bad summary never breaks the chat; the error carries the
	// panic value and stack (see [PanicError]).
	ErrSummarizerPanic = errors.New("recap: summarizer panicked")

	// ErrBudget is returned by Compress when the pinned prompt and the
	// current turn alone exceed WithMaxPayloadTokens.
	ErrBudget = errors.New("recap: pinned prompt and current turn exceed the payload budget")
)

// PanicError is a recovered panic of a Summarizer. It matches
// [ErrSummarizerPanic] with [errors.Is].
type PanicError struct {
	Value any    // what the Summarizer panicked with
	Stack []byte // the goroutine's stack at the panic
}

// Error returns "recap: summarizer panicked: " and the panic value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("recap: summarizer panicked: %v", e.Value)
}

// Is reports whether target is [ErrSummarizerPanic].
func (e *PanicError) Is(target error) bool { return target == ErrSummarizerPanic }

// MessageError describes an invalid message of the input. It matches
// [ErrInvalidMessage] with [errors.Is].
type MessageError struct {
	Index  int    // position of the message in the input
	ID     string // its ID, possibly empty
	Reason string // what is wrong with it
}

// Error says which message is invalid and why.
func (e *MessageError) Error() string {
	return fmt.Sprintf("recap: invalid message %d (id %q): %s", e.Index, e.ID, e.Reason)
}

// Is reports whether target is [ErrInvalidMessage].
func (e *MessageError) Is(target error) bool { return target == ErrInvalidMessage }
