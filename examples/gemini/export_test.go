package gemini

import (
	"context"
	"time"
)

// SetSleep replaces the wait between the retries of s, a Summarizer made
// by New, so that tests see the delays without waiting them.
func SetSleep(s *Summarizer, sleep func(context.Context, time.Duration) error) { s.retry.sleep = sleep }
