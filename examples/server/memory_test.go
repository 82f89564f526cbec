package main

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// MemoryBound is the documented bound on the Go heap that the service's
// requests and background summarizations take on top of its idle heap,
// with the default -max-concurrent, -max-messages, -summarize-workers and
// -summarize-queue and the 8 MiB body limit: at most DefaultMaxConcurrent
// requests run at once, each of at most worstRequestMiB, and at most
// DefaultSummarizeWorkers + DefaultSummarizeQueue background
// summarizations are running or queued, each holding a chat of at most
// worstTaskMiB.
const (
	worstRequestMiB = 80
	worstTaskMiB    = 25
	MemoryBoundMiB  = DefaultMaxConcurrent*worstRequestMiB + (DefaultSummarizeWorkers+DefaultSummarizeQueue)*worstTaskMiB // 420 MiB: with the idle heap (about 50 MiB), under 512 MiB
)

// worstBodies are the largest bodies the bounds allow, in each shape that
// costs memory: as many messages as allowed, as many parts, as many
// members, one huge text.
func worstBodies() map[string]string {
	const size = MaxBodyBytes - 4096
	per := size / DefaultMaxMessages
	build := func(msg func(i int) string) string {
		var b strings.Builder
		b.WriteString(`{"messages":[`)
		for i := 0; i < DefaultMaxMessages; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(msg(i))
		}
		b.WriteString(`]}`)
		return b.String()
	}
	role := func(i int) string { return [2]string{"user", "assistant"}[i%2] }
	return map[string]string{
		"Messages": build(func(i int) string {
			return fmt.Sprintf(`{"id":"m%d","role":"%s","content":"%s"}`, i, role(i), strings.Repeat("word ", (per-60)/5))
		}),
		"Parts": build(func(i int) string { // the value budget spent on empty parts
			return fmt.Sprintf(`{"id":"m%d","role":"%s","parts":[%s{"type":"text","text":"%s"}]}`, i, role(i),
				strings.Repeat(`{},`, valuesPerMessage-10), strings.Repeat("word ", (per-300)/5))
		}),
		"Members": build(func(i int) string { // the value budget spent on unknown members
			var extra strings.Builder
			for k := 0; k < valuesPerMessage-5; k++ {
				fmt.Fprintf(&extra, `,"k%d":0`, k)
			}
			return fmt.Sprintf(`{"id":"m%d","role":"%s","content":"%s"%s}`, i, role(i), strings.Repeat("word ", (per-800)/5), extra.String())
		}),
		"OneText": `{"messages":[{"id":"u","role":"user","content":"` + strings.Repeat("word ", size/5) + `"}]}`,
	}
}

// TestMemoryBound sends each worst-case body from 2 × DefaultMaxConcurrent
// clients at once, summarizing in the background as by default, and
// checks that the heap in use never grows more than MemoryBoundMiB above
// the idle server's (measured once, before the first worst case, so that
// the background summarizations still running from one case count in the
// next), sampled every millisecond. The counts are fixed; the clients wait
// as long as it takes.
func TestMemoryBound(t *testing.T) {
	requireLoad(t)
	if testing.Short() || raceEnabled {
		t.Skip("sends 32 bodies of 8 MiB; the race detector's own allocations would be measured")
	}
	base := startServer(t, nil, "-trigger", "1000", "-queue-wait", "10m", "-background")
	// Warm up: the token counter's tables, the summarizer's.
	if status, out := post(t, base+"/api/chats/warm/payload", chatJSON(t, 8)); status != 200 {
		t.Fatalf("warm-up: %d %v", status, out)
	}
	runtime.GC()
	idle := heapInuse() // before any worst case: what background tasks still hold counts too
	for name, body := range worstBodies() {
		t.Run(name, func(t *testing.T) {
			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					if h := heapInuse(); h > peak.Load() {
						peak.Store(h)
					}
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()
			var wg sync.WaitGroup
			for i := 0; i < 2*DefaultMaxConcurrent; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := http.Post(fmt.Sprintf("%s/api/chats/%s-%d/payload", base, name, i), "application/json", strings.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
					if resp.StatusCode != 200 {
						t.Errorf("request %d: %d", i, resp.StatusCode)
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-sampled
			grew := (int64(peak.Load()) - int64(idle)) >> 20
			t.Logf("%s: body %d MiB, heap in use %d MiB idle (before the first worst case), peak +%d MiB (bound %d MiB)", name, len(body)>>20, idle>>20, grew, MemoryBoundMiB)
			if grew > MemoryBoundMiB {
				t.Errorf("heap grew %d MiB, over the bound of %d MiB", grew, MemoryBoundMiB)
			}
		})
	}
}

func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
