package redisstore

import (
	"fmt"
	"time"
)

// DefaultKeyPrefix is what a chat's key starts with unless
// [WithKeyPrefix] says otherwise.
const DefaultKeyPrefix = "recap:summary:"

// DefaultLeaseKeyPrefix is what a chat's lease key starts with unless
// [WithLeaseKeyPrefix] says otherwise.
const DefaultLeaseKeyPrefix = "recap:lease:"

// DefaultTTL is no expiry: a summary stays until it is replaced or
// deleted. See [WithTTL].
const DefaultTTL time.Duration = 0

// config is what the options set; a Store keeps it read-only.
type config struct {
	prefix      string
	leasePrefix string
	ttl         time.Duration
}

// An Option configures a [Store]. Options are applied in order, so of two
// options that set the same thing the last one wins.
type Option interface {
	apply(*config) error
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

// WithKeyPrefix sets what every key starts with: a chat's summary is at
// prefix+chatID. The prefix must not be empty, so that summaries never mix
// with keys of other kinds. Two Stores on one server whose prefixes start
// one another ("recap:" and "recap:a:") can name the same key for
// different chats: give each Store a prefix that no other prefix starts.
// The default is [DefaultKeyPrefix].
func WithKeyPrefix(prefix string) Option {
	return optionFunc(func(c *config) error {
		if prefix == "" {
			return fmt.Errorf("redisstore: WithKeyPrefix: the prefix is empty")
		}
		c.prefix = prefix
		return nil
	})
}

// WithLeaseKeyPrefix sets what every lease key starts with: a chat's
// summarization lease (see [recap.Leaser]) is at prefix+chatID. The
// prefix must not be empty, and neither it nor the key prefix
// ([WithKeyPrefix]) may start the other, so that a lease key is never a
// summary's. Stores that share chats share leases; give Stores of
// different key prefixes (tenants) different lease prefixes too, or the
// same chat ID in two of them shares one lease, which only delays
// summaries. The default is [DefaultLeaseKeyPrefix].
func WithLeaseKeyPrefix(prefix string) Option {
	return optionFunc(func(c *config) error {
		if prefix == "" {
			return fmt.Errorf("redisstore: WithLeaseKeyPrefix: the prefix is empty")
		}
		c.leasePrefix = prefix
		return nil
	})
}

// WithTTL makes each successful Save set its key to expire ttl later; a
// Load does not refresh it. ttl must be at least a millisecond, Redis's
// unit for it (a finer part is dropped); 0 means no expiry, the default
// ([DefaultTTL]), with which a Save also removes an expiry that an earlier
// Store with a TTL left on the key. The TTL counts from the last Save, not
// the last use: a chat still in use that has needed no new summary for
// longer than ttl loses its summary too.
//
// An expired summary is as if it had never been made. A client that sends
// its full history each turn loses nothing: recap summarizes the history
// afresh (one summarization more). A client that sends back the payloads
// it got (the summary message and the window) instead of its full history
// loses what the expired summary covered: recap no longer knows the
// summary message, and the messages it stood for are gone. Use a TTL only
// with clients that send full histories.
func WithTTL(ttl time.Duration) Option {
	return optionFunc(func(c *config) error {
		switch {
		case ttl < 0:
			return fmt.Errorf("redisstore: WithTTL: %v is negative", ttl)
		case ttl > 0 && ttl < time.Millisecond:
			return fmt.Errorf("redisstore: WithTTL: %v is less than a millisecond, Redis's unit", ttl)
		}
		c.ttl = ttl
		return nil
	})
}
