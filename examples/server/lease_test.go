package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// leaseStores are the stores that replicas share in the lease tests.
var leaseStores = []struct {
	name string
	args func(t *testing.T) []string
}{
	{"SQLite", func(t *testing.T) []string { return []string{"-db", filepath.Join(t.TempDir(), "lease.db")} }},
	{"PostgreSQL", func(t *testing.T) []string { return []string{"-postgres", postgresDSN(t)} }},
}

// postPayload posts msgs of chat to base and decodes the answer.
func postPayload(client *http.Client, base, chat string, msgs any) (payloadResponse, error) {
	return postPayloadContext(context.Background(), client, base, chat, msgs)
}

// postPayloadContext is postPayload with a context.
func postPayloadContext(ctx context.Context, client *http.Client, base, chat string, msgs any) (payloadResponse, error) {
	body, _ := json.Marshal(map[string]any{"messages": msgs})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/chats/"+chat+"/payload", strings.NewReader(string(body)))
	if err != nil {
		return payloadResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return payloadResponse{}, err
	}
	defer resp.Body.Close()
	var out payloadResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, err
	}
	if resp.StatusCode != 200 {
		return out, fmt.Errorf("status %d", resp.StatusCode)
	}
	return out, nil
}

// TestLeaseReplicas: 2 and 4 server processes (replicas) share a store
// and get 100 concurrent requests for one chat over the trigger, spread
// over them: exactly one LLM call is made, in the request path
// (-background=false: the other replicas wait for the holder's summary
// and answer with it) and in the background (the other replicas' tasks
// give up; once the holder has saved, every replica answers on its
// summary). The replicas wait for the holder as long as it takes
// (-lease-wait and -timeout are only hang guards); the lease lasts 30 s,
// far longer than the holder's summarization (an LLM call of 300 ms), and
// short enough that a release that failed on an overloaded machine (a
// busy SQLite file) costs the waiters a wait, not their summary.
func TestLeaseReplicas(t *testing.T) {
	if os.Getenv("RECAP_HELPER_SERVER") != "" {
		t.Skip()
	}
	requireLoad(t)
	const requests = 100
	for _, st := range leaseStores {
		for _, background := range []bool{false, true} {
			for _, replicas := range []int{2, 4} {
				t.Run(fmt.Sprintf("%s/background=%v/replicas=%d", st.name, background, replicas), func(t *testing.T) {
					// The LLM's latency makes the requests meet the
					// holder's summarization; none is needed for the
					// assertions, which hold for any interleaving.
					llm := newFakeLLM(t, 300*time.Millisecond, 300*time.Millisecond)
					env := []string{"RECAP_OPENAI_BASE_URL=" + llm.URL, "RECAP_OPENAI_API_KEY=sk-test"}
					args := append(st.args(t), "-insecure-no-auth", "-addr", "127.0.0.1:0", "-trigger", strconv.Itoa(loadTrigger),
						"-window", strconv.Itoa(loadWindow), "-max-concurrent", "128", "-queue-wait", "1m", "-metrics=false", "-max-llm-calls", "1000", "-tenant-llm-per-minute", "1000000",
						"-background="+strconv.FormatBool(background), "-pg-max-conns", "8",
						"-lease-wait", hangGuard.String(), "-timeout", (2 * hangGuard).String(), "-lease-ttl", "30s")
					var logs events // the writes of every replica's log
					helpers := make([]*helper, replicas)
					for i := range helpers {
						helpers[i] = startHelper(t, &logs, env, args...)
					}
					chat := fmt.Sprintf("lease-%d", time.Now().UnixNano())
					msgs := loadChat(0, 8) // well over the trigger
					client := &http.Client{Timeout: hangGuard}
					results := make([]payloadResponse, requests)
					errs := make([]error, requests)
					var wg sync.WaitGroup
					for i := range requests {
						wg.Add(1)
						go func() {
							defer wg.Done()
							results[i], errs[i] = postPayload(client, helpers[i%replicas].base, chat, msgs)
						}()
					}
					wg.Wait()
					summarized := 0
					for i, err := range errs {
						if err != nil {
							t.Fatalf("request %d: %v", i, err)
						}
						if results[i].Summarized {
							summarized++
						}
						if !background && results[i].Boundary == "" {
							t.Errorf("request %d to replica %d: no summary in the payload (warning %q)", i, i%replicas, results[i].Warning)
						}
					}
					if background {
						// Once the holder's task has saved (its log says
						// so), every replica answers on the summary.
						logs.waitFunc(t, "a replica's background summary", func() bool {
							for _, h := range helpers {
								if h.logs.lines(`"msg":"recap: summarized"`) > 0 {
									return true
								}
							}
							return false
						})
						for i, h := range helpers {
							out, err := postPayload(client, h.base, chat, msgs)
							if err != nil {
								t.Fatal(err)
							}
							if out.Boundary == "" {
								t.Errorf("replica %d: no summary after the background task saved", i)
							}
						}
					} else if summarized != 1 {
						t.Errorf("%d responses report a summarization, want 1", summarized)
					}
					if n := llm.calls.count(); n != 1 {
						t.Errorf("%d LLM calls for one trigger, want 1", n)
					}
					t.Logf("%d requests over %d replicas: %d LLM call(s)", requests, replicas, llm.calls.count())
				})
			}
		}
	}
}

// TestLeaseTakeover: a replica killed (SIGKILL) while it holds a chat's
// lease, in the middle of its LLM call, is taken over once the lease
// expires: another replica's request, which waits without calling the
// LLM while the holder lives, summarizes. Its LLM call comes after the
// kill: the kill follows the holder's LLM call and the other request's
// sending at once (events, not waits), well within the lease's 10 s.
func TestLeaseTakeover(t *testing.T) {
	if os.Getenv("RECAP_HELPER_SERVER") != "" {
		t.Skip()
	}
	requireLoad(t)
	for _, st := range leaseStores {
		t.Run(st.name, func(t *testing.T) {
			llm := newFakeLLM(t, 0, 0)
			llm.hangFirst = 1 // the first call never answers
			env := []string{"RECAP_OPENAI_BASE_URL=" + llm.URL, "RECAP_OPENAI_API_KEY=sk-test"}
			args := append(st.args(t), "-insecure-no-auth", "-addr", "127.0.0.1:0", "-trigger", strconv.Itoa(loadTrigger),
				"-window", strconv.Itoa(loadWindow), "-metrics=false", "-background=false", "-max-llm-calls", "1000", "-tenant-llm-per-minute", "1000000",
				"-lease-ttl", "10s", "-lease-wait", hangGuard.String(), "-timeout", (2 * hangGuard).String())
			holder := startHelper(t, nil, env, args...)
			other := startHelper(t, nil, env, args...)
			chat := fmt.Sprintf("takeover-%d", time.Now().UnixNano())
			msgs := loadChat(0, 8)
			client := &http.Client{Timeout: hangGuard}
			go postPayload(client, holder.base, chat, msgs) // its LLM call hangs
			llm.calls.wait(t, 1, "the holder's LLM call")
			// The other replica's request, sent while the holder lives,
			// waits for the lease.
			type answer struct {
				out payloadResponse
				err error
			}
			answers := make(chan answer, 1)
			sent := make(chan struct{})
			go func() {
				ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { close(sent) }})
				out, err := postPayloadContext(ctx, client, other.base, chat, msgs)
				answers <- answer{out, err}
			}()
			received(t, sent, "the other replica's request to be sent")
			callsAlive := llm.calls.count()
			holder.kill()
			a := received(t, answers, "the other replica's answer")
			if a.err != nil {
				t.Fatal(a.err)
			}
			if callsAlive != 1 {
				t.Errorf("%d LLM calls while the holder lived, want 1", callsAlive)
			}
			if !a.out.Summarized || a.out.Boundary == "" || a.out.Warning != "" {
				t.Errorf("after the holder died: summarized %v, boundary %q, warning %q; want a summary by the other replica",
					a.out.Summarized, a.out.Boundary, a.out.Warning)
			}
			if n := llm.calls.count(); n != 2 {
				t.Errorf("%d LLM calls, want 2 (the dead holder's and the takeover's)", n)
			}
		})
	}
}
