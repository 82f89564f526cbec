package redisstore_test

import (
	"context"
	"time"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/examples/redisstore"
	"github.com/redis/go-redis/v9"
)

// A Compressor that keeps its summaries in Redis, on the application's own
// client. (Not run: it needs a server.)
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"}) // TLS, auth, tracing: the caller's
	defer client.Close()

	store, err := redisstore.New(client,
		redisstore.WithKeyPrefix("myapp:recap:"), // keys myapp:recap:<chat ID>
		redisstore.WithTTL(30*24*time.Hour))      // only if clients send full histories
	if err != nil {
		panic(err)
	}
	summarize := recap.SummarizerFunc(func(ctx context.Context, req recap.SummarizeRequest) (string, error) {
		return "a summary of " + req.Previous, nil // an LLM call in practice
	})
	c, err := recap.New(summarize, store)
	if err != nil {
		panic(err)
	}
	_ = c // c.Compress(ctx, chatID, messages) on every turn
}
