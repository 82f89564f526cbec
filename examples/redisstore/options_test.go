package redisstore_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recapgo/recap/examples/redisstore"
	"github.com/redis/go-redis/v9"
)

func TestNew(t *testing.T) {
	// New does not contact the server: nothing listens on port 1.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, tc := range []struct {
		name   string
		client redis.UniversalClient
		opts   []redisstore.Option
		want   string // in the error; "" for none
		reason string
	}{
		{"Defaults", c, nil, "", "no options"},
		{"Prefix", c, []redisstore.Option{redisstore.WithKeyPrefix("app:{recap}:")}, "", "any non-empty prefix"},
		{"TTL", c, []redisstore.Option{redisstore.WithTTL(24 * time.Hour)}, "", "a TTL"},
		{"TTLMillisecond", c, []redisstore.Option{redisstore.WithTTL(time.Millisecond)}, "", "Redis's unit is the smallest TTL"},
		{"TTLOff", c, []redisstore.Option{redisstore.WithTTL(time.Hour), redisstore.WithTTL(0)}, "", "0 turns it off; the last option wins"},
		{"NilClient", nil, nil, "redisstore: nil client", "a Store needs a client"},
		{"EmptyPrefix", c, []redisstore.Option{redisstore.WithKeyPrefix("")}, "redisstore: WithKeyPrefix: ", "summaries would mix with other keys"},
		{"NegativeTTL", c, []redisstore.Option{redisstore.WithTTL(-time.Second)}, "redisstore: WithTTL: -1s is negative", "never clamped"},
		{"SubMillisecondTTL", c, []redisstore.Option{redisstore.WithTTL(time.Microsecond)}, "redisstore: WithTTL: 1µs is less than a millisecond", "PEXPIRE would get 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := redisstore.New(tc.client, tc.opts...)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("New = %v, want a Store (%s)", err, tc.reason)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("New = %v, %v; want an error with %q (%s)", st, err, tc.want, tc.reason)
			}
		})
	}
}

func TestPrefixesApart(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never contacted
	defer c.Close()
	for _, tc := range []struct {
		summary, lease string
		ok             bool
	}{
		{redisstore.DefaultKeyPrefix, redisstore.DefaultLeaseKeyPrefix, true},
		{"app:s:", "app:l:", true},
		{"app:", "app:lease:", false},
		{"app:lease:", "app:", false},
		{"same:", "same:", false},
	} {
		_, err := redisstore.New(c, redisstore.WithKeyPrefix(tc.summary), redisstore.WithLeaseKeyPrefix(tc.lease))
		if (err == nil) != tc.ok {
			t.Errorf("New(%q, %q) = %v, want ok %v", tc.summary, tc.lease, err, tc.ok)
		}
	}
	if _, err := redisstore.New(c, redisstore.WithLeaseKeyPrefix("")); err == nil {
		t.Error("empty lease prefix accepted")
	}
}
