package main

import (
	"context"
	"log/slog"
	"sync"
)

// Defaults of the background summarizations (recap.WithBackground).
const (
	DefaultSummarizeWorkers = 2 // see -summarize-workers
	DefaultSummarizeQueue   = 2 // see -summarize-queue
)

// workers runs the background summarizations that recap hands to it
// (recap.WithBackground) on a fixed number of goroutines, from a bounded
// queue. A task that finds the queue full is not dropped on the floor:
// recap keeps a task pending until it runs, and a chat with a pending task
// is not scheduled again, so it is run at once with a context already
// done, which ends it before it calls anything and frees the chat for a
// later request to schedule anew.
type workers struct {
	log    *slog.Logger
	queue  chan func(context.Context)
	ctx    context.Context // the tasks' context: cancelled when the grace period ends
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex // protects dropped
	dropped int        // tasks ended because the queue was full
}

// newWorkers starts n goroutines serving a queue of q tasks.
func newWorkers(log *slog.Logger, n, q int) *workers {
	ctx, cancel := context.WithCancel(context.Background())
	w := &workers{log: log, queue: make(chan func(context.Context), q), ctx: ctx, cancel: cancel}
	w.wg.Add(n)
	for range n {
		go func() {
			defer w.wg.Done()
			for {
				select {
				case task := <-w.queue:
					task(w.ctx)
				case <-w.ctx.Done():
					return
				}
			}
		}()
	}
	return w
}

// run is the scheduler of recap.WithBackground: it queues task, or, with
// the queue full, ends it at once (see workers).
func (w *workers) run(task func(context.Context)) {
	select {
	case w.queue <- task:
		return
	default:
	}
	w.mu.Lock()
	w.dropped++
	w.mu.Unlock()
	w.log.Warn("background summarization queue full: task dropped, a later request schedules it again", "queue", cap(w.queue))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	task(done)
}

// stop cancels the tasks still running or queued (their context is done)
// and waits for the goroutines to end. Call it after recap's Drain.
func (w *workers) stop() {
	w.cancel()
	w.wg.Wait()
	for {
		select {
		case task := <-w.queue:
			task(w.ctx) // done: ends at once and frees its chat
		default:
			return
		}
	}
}
