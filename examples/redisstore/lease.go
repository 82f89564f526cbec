package redisstore

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/recapgo/recap"
	"github.com/redis/go-redis/v9"
)

// leaseSource is the lease script; its header documents the arguments.
//
//go:embed lease.lua
var leaseSource string

var leaseScript = redis.NewScript(leaseSource)

// LeaseKey returns the key that holds chatID's summarization lease: the
// lease prefix followed by chatID, verbatim.
func (s *Store) LeaseKey(chatID string) string { return s.leasePrefix + chatID }

// AcquireLease grants chatID's summarization lease to holder for ttl, or
// extends holder's lease, and returns an error matching
// [recap.ErrLeaseHeld] if another holder's has not expired; see
// [recap.Leaser]. The lease is a string key (see [Store.LeaseKey]) that
// Redis expires after ttl, rounded up to a millisecond, on the server's
// clock; one Lua script tests and sets it.
func (s *Store) AcquireLease(ctx context.Context, chatID, holder string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redisstore: lease %q: %w", chatID, err)
	}
	if ttl <= 0 {
		return fmt.Errorf("redisstore: lease %q: time-to-live %v is not positive", chatID, ttl)
	}
	ms := (ttl + time.Millisecond - 1) / time.Millisecond
	got, err := leaseScript.Run(ctx, s.client, []string{s.LeaseKey(chatID)}, holder, strconv.FormatInt(int64(ms), 10), "acquire").Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisstore: lease %q: %w", chatID, err)
	case got == 1:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("redisstore: lease %q: %w", chatID, ctx.Err())
	}
	return fmt.Errorf("redisstore: lease %q: %w", chatID, recap.ErrLeaseHeld)
}

// ReleaseLease deletes chatID's lease key if holder holds the lease; see
// [recap.Leaser].
func (s *Store) ReleaseLease(ctx context.Context, chatID, holder string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redisstore: release lease %q: %w", chatID, err)
	}
	if err := leaseScript.Run(ctx, s.client, []string{s.LeaseKey(chatID)}, holder, "0", "release").Err(); err != nil {
		return fmt.Errorf("redisstore: release lease %q: %w", chatID, err)
	}
	return nil
}
