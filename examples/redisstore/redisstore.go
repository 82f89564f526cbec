package redisstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/internal/sumdigest"
	"github.com/redis/go-redis/v9"
)

// casSource is the compare-and-swap script; its header documents the
// arguments.
//
//go:embed cas.lua
var casSource string

// cas is run with EVALSHA, falling back to EVAL when the server does not
// have it cached. A Script only holds the source and its SHA-1, read-only.
var cas = redis.NewScript(casSource)

// Store is a [recap.Store] and a [recap.Leaser] on a Redis client. It is safe for concurrent
// use by multiple goroutines and processes. The zero Store is not usable:
// make one with [New].
type Store struct {
	client      redis.UniversalClient
	prefix      string
	leasePrefix string
	ttl         string // PEXPIRE's argument, in milliseconds; "0" for none
}

// New returns a Store that keeps summaries through client, which stays the
// caller's to configure and close. New does not contact the server. It
// returns an error if client is nil or an option is invalid.
func New(client redis.UniversalClient, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, errors.New("redisstore: nil client")
	}
	cfg := config{prefix: DefaultKeyPrefix, leasePrefix: DefaultLeaseKeyPrefix, ttl: DefaultTTL}
	for _, o := range opts {
		if err := o.apply(&cfg); err != nil {
			return nil, err
		}
	}
	if strings.HasPrefix(cfg.prefix, cfg.leasePrefix) || strings.HasPrefix(cfg.leasePrefix, cfg.prefix) {
		return nil, fmt.Errorf("redisstore: the key prefix %q and the lease key prefix %q start one another: a lease key could be a summary's", cfg.prefix, cfg.leasePrefix)
	}
	return &Store{client: client, prefix: cfg.prefix, leasePrefix: cfg.leasePrefix, ttl: strconv.FormatInt(cfg.ttl.Milliseconds(), 10)}, nil
}

// Key returns the key that holds chatID's summary: the prefix followed by
// chatID, verbatim.
func (s *Store) Key(chatID string) string { return s.prefix + chatID }

// Load returns the summary of chatID, or the zero Summary if it has none
// (or it expired), in one HMGET. Its Covered and Digests are fresh
// slices, nil for none (Digests is nil for a summary saved by the
// redisstore before Summary.Digests). A key that does not hold a summary as [Store.Save] writes it (not
// a hash, a field missing, a digest that does not match the summary) is an
// error. With a done ctx, Load returns ctx's error and sends nothing.
func (s *Store) Load(ctx context.Context, chatID string) (recap.Summary, error) {
	if err := ctx.Err(); err != nil {
		return recap.Summary{}, fmt.Errorf("redisstore: load %q: %w", chatID, err)
	}
	fields, err := s.client.HMGet(ctx, s.Key(chatID), "digest", "summary").Result()
	if err != nil {
		return recap.Summary{}, fmt.Errorf("redisstore: load %q: %w", chatID, err)
	}
	stored, hasDigest := fields[0].(string)
	encoded, hasSummary := fields[1].(string)
	switch {
	case fields[0] == nil && fields[1] == nil:
		return recap.Summary{}, nil
	case !hasDigest || !hasSummary:
		return recap.Summary{}, fmt.Errorf("redisstore: load %q: the key lacks the digest or the summary field", chatID)
	}
	sum, err := decode(encoded)
	if err != nil {
		return recap.Summary{}, fmt.Errorf("redisstore: load %q: %w", chatID, err)
	}
	if sumdigest.Of(sum) != stored {
		return recap.Summary{}, fmt.Errorf("redisstore: load %q: the stored digest does not match the summary (was it written by something other than redisstore?)", chatID)
	}
	return sum, nil
}

// Save stores next for chatID if the stored summary equals prev, in one
// Lua script (see the package documentation), and returns an error
// matching [recap.ErrConflict] otherwise, having changed nothing. A zero
// next deletes the key. A successful Save sets the key's expiry to the
// TTL ([WithTTL]), or removes it when there is none. A next whose text,
// boundary, covered IDs or digests are not valid UTF-8 is an error, and
// nothing is sent. With a done ctx, Save returns ctx's error and sends nothing; once
// ctx is done, Save never reports a conflict.
func (s *Store) Save(ctx context.Context, chatID string, prev, next recap.Summary) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redisstore: save %q: %w", chatID, err)
	}
	var prevDigest, nextDigest, encoded string // "" for a zero Summary: no key
	if !prev.IsZero() {
		prevDigest = sumdigest.Of(prev)
	}
	if !next.IsZero() {
		var err error
		if encoded, err = encode(next); err != nil {
			return fmt.Errorf("redisstore: save %q: %w", chatID, err)
		}
		nextDigest = sumdigest.Of(next)
	}
	wrote, err := cas.Run(ctx, s.client, []string{s.Key(chatID)}, prevDigest, nextDigest, encoded, s.ttl).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisstore: save %q: %w", chatID, err)
	case wrote == 1:
		return nil
	case ctx.Err() != nil:
		// The script found a conflict, but the caller has stopped
		// waiting: report that, as the Store contract asks.
		return fmt.Errorf("redisstore: save %q: %w", chatID, ctx.Err())
	default:
		return fmt.Errorf("redisstore: save %q: %w", chatID, recap.ErrConflict)
	}
}
