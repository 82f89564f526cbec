package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
	body, _ := json.Marshal(map[string]any{"messages": msgs})
	resp, err := client.Post(base+"/api/chats/"+chat+"/payload", "application/json", strings.NewReader(string(body)))
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
// give up; the next request finds the summary).
func TestLeaseReplicas(t *testing.T) {
	if os.Getenv("RECAP_HELPER_SERVER") != "" {
		t.Skip()
	}
	const requests = 100
	for _, st := range leaseStores {
		for _, background := range []bool{false, true} {
			for _, replicas := range []int{2, 4} {
				t.Run(fmt.Sprintf("%s/background=%v/replicas=%d", st.name, background, replicas), func(t *testing.T) {
					llm := newFakeLLM(t, 300*time.Millisecond, 300*time.Millisecond)
					env := []string{"RECAP_OPENAI_BASE_URL=" + llm.URL, "RECAP_OPENAI_API_KEY=sk-test"}
					args := append(st.args(t), "-insecure-no-auth", "-addr", "127.0.0.1:0", "-trigger", strconv.Itoa(loadTrigger),
						"-window", strconv.Itoa(loadWindow), "-max-concurrent", "128", "-queue-wait", "1m", "-metrics=false",
						"-background="+strconv.FormatBool(background), "-pg-max-conns", "8")
					bases := make([]string, replicas)
					for i := range bases {
						bases[i], _ = startHelper(t, env, args...)
					}
					chat := fmt.Sprintf("lease-%d", time.Now().UnixNano())
					msgs := loadChat(0, 8) // well over the trigger
					client := &http.Client{Timeout: 30 * time.Second}
					results := make([]payloadResponse, requests)
					errs := make([]error, requests)
					var wg sync.WaitGroup
					for i := range requests {
						wg.Add(1)
						go func() {
							defer wg.Done()
							results[i], errs[i] = postPayload(client, bases[i%replicas], chat, msgs)
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
						// Let the background tasks finish, then every
						// replica answers on the summary.
						deadline := time.Now().Add(20 * time.Second)
						for i := 0; i < replicas; i++ {
							for {
								out, err := postPayload(client, bases[i], chat, msgs)
								if err != nil {
									t.Fatal(err)
								}
								if out.Boundary != "" || time.Now().After(deadline) {
									if out.Boundary == "" {
										t.Errorf("replica %d: no summary after the background tasks", i)
									}
									break
								}
								time.Sleep(50 * time.Millisecond)
							}
						}
					} else if summarized != 1 {
						t.Errorf("%d responses report a summarization, want 1", summarized)
					}
					if n := llm.calls.Load(); n != 1 {
						t.Errorf("%d LLM calls for one trigger, want 1", n)
					}
					t.Logf("%d requests over %d replicas: %d LLM call(s)", requests, replicas, llm.calls.Load())
				})
			}
		}
	}
}

// TestLeaseTakeover: a replica killed (SIGKILL) while it holds a chat's
// lease, in the middle of its LLM call, is taken over once the lease
// expires: another replica's request, which waited without calling the
// LLM while the holder lived, summarizes.
func TestLeaseTakeover(t *testing.T) {
	if os.Getenv("RECAP_HELPER_SERVER") != "" {
		t.Skip()
	}
	for _, st := range leaseStores {
		t.Run(st.name, func(t *testing.T) {
			llm := newFakeLLM(t, 0, 0)
			llm.hangFirst = 1 // the first call never answers
			env := []string{"RECAP_OPENAI_BASE_URL=" + llm.URL, "RECAP_OPENAI_API_KEY=sk-test"}
			args := append(st.args(t), "-insecure-no-auth", "-addr", "127.0.0.1:0", "-trigger", strconv.Itoa(loadTrigger),
				"-window", strconv.Itoa(loadWindow), "-metrics=false", "-background=false",
				"-lease-ttl", "2s", "-lease-wait", "20s", "-timeout", "60s")
			holderBase, holder := startHelper(t, env, args...)
			otherBase, _ := startHelper(t, env, args...)
			chat := fmt.Sprintf("takeover-%d", time.Now().UnixNano())
			msgs := loadChat(0, 8)
			client := &http.Client{Timeout: 30 * time.Second}
			go postPayload(client, holderBase, chat, msgs) // its LLM call hangs
			for llm.calls.Load() == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			// The other replica waits for the lease while the holder lives.
			type answer struct {
				out payloadResponse
				err error
			}
			other := make(chan answer, 1)
			go func() {
				out, err := postPayload(client, otherBase, chat, msgs)
				other <- answer{out, err}
			}()
			time.Sleep(500 * time.Millisecond)
			if n := llm.calls.Load(); n != 1 {
				t.Errorf("%d LLM calls while the holder lives, want 1", n)
			}
			if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			holder.Wait()
			a := <-other
			out, err := a.out, a.err
			if err != nil {
				t.Fatal(err)
			}
			if !out.Summarized || out.Boundary == "" || out.Warning != "" {
				t.Errorf("after the holder died: summarized %v, boundary %q, warning %q; want a summary by the other replica",
					out.Summarized, out.Boundary, out.Warning)
			}
			if n := llm.calls.Load(); n != 2 {
				t.Errorf("%d LLM calls, want 2 (the dead holder's and the takeover's)", n)
			}
		})
	}
}
