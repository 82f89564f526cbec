package recap

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// queue is a scheduler for WithBackground that keeps tasks until the test
// runs them.
type queue struct {
	mu    sync.Mutex
	tasks []func(context.Context)
}

func (q *queue) run(task func(context.Context)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.tasks = append(q.tasks, task)
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.tasks)
}

// drain runs the queued tasks, in order, on this goroutine.
func (q *queue) drain() {
	for {
		q.mu.Lock()
		if len(q.tasks) == 0 {
			q.mu.Unlock()
			return
		}
		t := q.tasks[0]
		q.tasks = q.tasks[1:]
		q.mu.Unlock()
		t(context.Background())
	}
}

func TestBackgroundSchedules(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	st := NewMemoryStore()
	var q queue
	c := mustNew(t, sum, st, WithTriggerTokens(30), WithBackground(q.run))

	res, err := c.Compress(ctx, "c", conversation(3))
	if err != nil || res.Summarized || !res.Scheduled || sum.count() != 0 || q.len() != 1 {
		t.Fatalf("trigger fired: err %v, Summarized %v, Scheduled %v, %d calls, %d tasks; want one task, no call", err, res.Summarized, res.Scheduled, sum.count(), q.len())
	}
	if len(res.Payload) != len(conversation(3)) {
		t.Fatalf("payload %v, want the unsummarized chat", ids(res.Payload))
	}
	// While it is pending, no other task is scheduled.
	res, err = c.Compress(ctx, "c", conversation(4))
	if err != nil || !res.Scheduled || q.len() != 1 || sum.count() != 0 {
		t.Fatalf("second call: err %v, Scheduled %v, %d tasks, %d calls", err, res.Scheduled, q.len(), sum.count())
	}
	q.drain()
	if sum.count() != 1 {
		t.Fatalf("%d calls after the task ran, want 1", sum.count())
	}
	stored, _ := st.Load(ctx, "c")
	if stored.LastMessageID != "a2" {
		t.Fatalf("the task saved %+v; want the chat it was given (conversation(3)) folded up to a2", stored)
	}
	res, err = c.Compress(ctx, "c", conversation(4))
	if err != nil || res.Payload[0].ID != SummaryIDPrefix+"a2" {
		t.Fatalf("after the task: err %v, payload %v", err, ids(res.Payload))
	}
	if err := c.Drain(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestBackgroundSynchronousScheduler: a scheduler that runs the task
// before it returns does not deadlock.
func TestBackgroundSynchronousScheduler(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	c := mustNew(t, &recorder{}, st, WithTriggerTokens(30), WithBackground(func(task func(context.Context)) { task(ctx) }))
	res, err := c.Compress(ctx, "c", conversation(3))
	if err != nil || res.Scheduled || res.Summarized {
		t.Fatalf("err %v, Scheduled %v, Summarized %v; want the task done, the request unsummarized", err, res.Scheduled, res.Summarized)
	}
	if stored, _ := st.Load(ctx, "c"); stored.LastMessageID != "a2" {
		t.Fatalf("stored %+v", stored)
	}
}

// TestBackgroundCeilingTakesOver: a request whose unsummarized payload
// would break the ceiling does the work of the pending task, which then
// has nothing to do.
func TestBackgroundCeilingTakesOver(t *testing.T) {
	ctx := context.Background()
	sum := &recorder{}
	var q queue
	c := mustNew(t, sum, NewMemoryStore(), WithTriggerTokens(30), WithMaxPayloadTokens(70), WithBackground(q.run))
	if res, _ := c.Compress(ctx, "c", conversation(3)); !res.Scheduled || res.PayloadTokens > 70 {
		t.Fatalf("within the ceiling: %+v", res)
	}
	res, err := c.Compress(ctx, "c", conversation(6)) // 123 words unsummarized
	if err != nil || !res.Summarized || res.Scheduled || sum.count() != 1 || res.PayloadTokens > 70 {
		t.Fatalf("over the ceiling: err %v, Summarized %v, Scheduled %v, %d calls, %d tokens", err, res.Summarized, res.Scheduled, sum.count(), res.PayloadTokens)
	}
	q.drain()
	if sum.count() != 1 {
		t.Fatalf("the pending task summarized again: %d calls", sum.count())
	}
}

// TestBackgroundWaitsForRunningTask: a request over the ceiling waits for
// the task that is summarizing instead of calling the Summarizer again.
func TestBackgroundWaitsForRunningTask(t *testing.T) {
	ctx := context.Background()
	st := NewMemoryStore()
	gate := make(chan struct{})
	entered := make(chan struct{}, 1)
	var calls int
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		calls++
		entered <- struct{}{}
		<-gate
		return "through " + req.Messages[len(req.Messages)-1].ID, nil
	})
	var q queue
	c := mustNew(t, sum, st, WithTriggerTokens(30), WithMaxPayloadTokens(70), WithBackground(q.run))
	if res, _ := c.Compress(ctx, "c", conversation(3)); !res.Scheduled { // 63 words: within the ceiling
		t.Fatal("not scheduled")
	}
	done := make(chan struct{})
	go func() { q.drain(); close(done) }()
	<-entered // the task runs
	var res Result
	var err error
	waited := make(chan struct{})
	go func() { res, err = c.Compress(ctx, "c", conversation(5)); close(waited) }() // 103 words: over it
	awaitWaiters(t, c, "c", 1)
	close(gate)
	<-done
	<-waited
	if err != nil || calls != 1 || !strings.HasPrefix(res.Payload[0].ID, SummaryIDPrefix) {
		t.Fatalf("err %v, %d calls, payload %v", err, calls, ids(res.Payload))
	}
}

// TestBackgroundNeverRun: with a scheduler that never runs anything, the
// ceiling still holds on every turn.
func TestBackgroundNeverRun(t *testing.T) {
	ctx := context.Background()
	c := mustNew(t, &recorder{fail: errors.New("down")}, NewMemoryStore(), WithTriggerTokens(30), WithMaxPayloadTokens(80),
		WithBackground(func(func(context.Context)) {}))
	for turn := 1; turn <= 30; turn++ {
		res, err := c.Compress(ctx, "c", conversation(turn))
		if err != nil || res.PayloadTokens > 80 {
			t.Fatalf("turn %d: err %v, %d tokens over the ceiling of 80", turn, err, res.PayloadTokens)
		}
	}
}

// TestBackgroundRequestCancelled: a summarization a request does itself
// is not cancelled when the client gives up: it is saved, then Compress
// returns the context's error.
func TestBackgroundRequestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	st := NewMemoryStore()
	var seen error
	sum := SummarizerFunc(func(sctx context.Context, req SummarizeRequest) (string, error) {
		cancel() // the client gives up while the LLM is working
		seen = sctx.Err()
		return "summary", nil
	})
	c := mustNew(t, sum, st, WithTriggerTokens(30), WithMaxPayloadTokens(40), WithBackground(func(func(context.Context)) {}))
	_, err := c.Compress(ctx, "c", conversation(4))
	if !errors.Is(err, context.Canceled) || seen != nil {
		t.Fatalf("Compress = %v, the summarizer's context %v; want context.Canceled, and a live summarizer context", err, seen)
	}
	if stored, _ := st.Load(context.Background(), "c"); stored.Text != "summary" {
		t.Fatalf("stored %+v: the LLM call was wasted", stored)
	}
}

// TestBackgroundDrain: Drain returns once the pending tasks ran, and with
// ctx's error while one is pending.
func TestBackgroundDrain(t *testing.T) {
	ctx := context.Background()
	var q queue
	c := mustNew(t, &recorder{}, NewMemoryStore(), WithTriggerTokens(30), WithBackground(q.run))
	if _, err := c.Compress(ctx, "c", conversation(3)); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Drain(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drain with a task pending = %v, want context.Canceled", err)
	}
	drained := make(chan error)
	go func() { drained <- c.Drain(ctx) }()
	q.drain()
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
}

// TestBackgroundLongChat replays a 300-turn chat: while tasks complete
// before the ceiling is reached, no Compress call waits for a Summarizer,
// every payload fits the ceiling, and the summary keeps up.
func TestBackgroundLongChat(t *testing.T) {
	ctx := context.Background()
	var inRequest, inTask int
	running := false
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		if running {
			inTask++
		} else {
			inRequest++
		}
		return "through " + req.Messages[len(req.Messages)-1].ID, nil
	})
	st := NewMemoryStore()
	var q queue
	const ceiling = 400
	c := mustNew(t, sum, st, WithTriggerTokens(200), WithMaxPayloadTokens(ceiling), WithBackground(q.run))
	largest := 0
	for turn := 1; turn <= 300; turn++ {
		res, err := c.Compress(ctx, "c", conversation(turn))
		if err != nil || res.PayloadTokens > ceiling || len(res.Dropped) > 0 {
			t.Fatalf("turn %d: err %v, %d tokens, %d dropped", turn, err, res.PayloadTokens, len(res.Dropped))
		}
		largest = max(largest, res.PayloadTokens)
		running = true
		q.drain()
		running = false
	}
	stored, _ := st.Load(ctx, "c")
	if inRequest != 0 || inTask < 20 || stored.LastMessageID < "a28" {
		t.Fatalf("%d summarizations in a request, %d in tasks, boundary %q", inRequest, inTask, stored.LastMessageID)
	}
	t.Logf("300 turns: %d summarizations, all in the background; largest payload %d tokens", inTask, largest)
}

// BenchmarkCompressTriggered measures Compress on a turn whose trigger
// fires, with a Summarizer that takes 2 ms like a (very fast) LLM: in the
// request, and with WithBackground (the task runs after Compress returns).
func BenchmarkCompressTriggered(b *testing.B) {
	chat := conversation(20)
	slow := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		time.Sleep(2 * time.Millisecond)
		return "summary", nil
	})
	for _, bg := range []bool{false, true} {
		name := "inline"
		var q queue
		opts := []Option{WithTriggerTokens(100)}
		if bg {
			name = "background"
			opts = append(opts, WithBackground(q.run))
		}
		b.Run(name, func(b *testing.B) {
			c, err := New(slow, NewMemoryStore(), append(opts, WithTokenCounter(words))...)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.Compress(context.Background(), fmt.Sprint("chat-", i), chat); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				q.tasks = nil
				b.StartTimer()
			}
		})
	}
}

// TestBackgroundTaskCancelled: a background task's context is the
// scheduler's: when the scheduler cancels it (a shutdown whose grace is
// over), the Summarizer call is cancelled and nothing is saved.
func TestBackgroundTaskCancelled(t *testing.T) {
	st := NewMemoryStore()
	entered := make(chan struct{})
	sum := SummarizerFunc(func(ctx context.Context, req SummarizeRequest) (string, error) {
		close(entered)
		<-ctx.Done() // a hung LLM, released only by cancellation
		return "", ctx.Err()
	})
	taskCtx, cancel := context.WithCancel(context.Background())
	var task func(context.Context)
	c := mustNew(t, sum, st, WithTriggerTokens(30), WithBackground(func(f func(context.Context)) { task = f }))
	if res, _ := c.Compress(context.Background(), "c", conversation(3)); !res.Scheduled {
		t.Fatal("not scheduled")
	}
	done := make(chan struct{})
	go func() { task(taskCtx); close(done) }()
	<-entered
	cancel()
	select { // done only if the cancellation reached the Summarizer
	case <-done:
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("the task's cancellation did not reach the Summarizer")
	}
	if s, _ := st.Load(context.Background(), "c"); !s.IsZero() {
		t.Errorf("a cancelled task saved %+v", s)
	}
}
