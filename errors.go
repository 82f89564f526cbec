package recap

import (
	"errors"
	"fmt"
)

// Errors that callers branch on with [errors.Is].
var (
	// ErrNoMessages is returned for an empty message list.
	ErrNoMessages = errors.New("recap: no messages")

	// ErrInvalidMessage is matched by a [*MessageError]: a message without
	// an ID, with a duplicate ID or with an unknown role.
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
)

// MessageError describes an invalid message of the input. It matches
// [ErrInvalidMessage] with [errors.Is].
type MessageError struct {
	Index  int    // position of the message in the input
	ID     string // its ID, possibly empty
	Reason string // what is wrong with it
}

func (e *MessageError) Error() string {
	return fmt.Sprintf("recap: invalid message %d (id %q): %s", e.Index, e.ID, e.Reason)
}

// Is reports whether target is [ErrInvalidMessage].
func (e *MessageError) Is(target error) bool { return target == ErrInvalidMessage }
