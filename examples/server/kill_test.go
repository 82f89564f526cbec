package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestHelperServer is not a test: TestLoadKill runs the test binary again
// with RECAP_HELPER_SERVER set, as a server process it can kill.
func TestHelperServer(t *testing.T) {
	args := os.Getenv("RECAP_HELPER_SERVER")
	if args == "" {
		t.Skip("a helper process of TestLoadKill")
	}
	err := run(context.Background(), strings.Split(args, "\x1f"), os.Getenv, os.Stdout, os.Stderr, time.Now)
	fmt.Fprintln(os.Stderr, "helper server:", err)
	os.Exit(1)
}

// helper is a server running as a child process (see TestHelperServer).
type helper struct {
	base   string        // its URL
	cmd    *exec.Cmd     // the process
	logs   *logWriter    // its stderr: its log, JSON lines
	exited chan struct{} // closed once it has exited
}

// startHelper starts the server as a child process with args and waits
// for its "listening" line. Its log lines are occurrences of writes (nil:
// its own), which the helpers of a test may share to wait for a line of
// any of them. The process is killed when the test ends.
func startHelper(t *testing.T, writes *events, env []string, args ...string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
	cmd.Env = append(append(os.Environ(), env...), "RECAP_HELPER_SERVER="+strings.Join(args, "\x1f"))
	h := &helper{cmd: cmd, logs: newLogWriter(writes), exited: make(chan struct{})}
	cmd.Stderr = h.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(h.kill)
	select {
	case a := <-h.logs.addr:
		h.base = "http://" + a
	case <-h.exited:
		t.Fatalf("the helper server exited before listening:\n%s", h.logs)
	case <-time.After(hangGuard):
		t.Fatalf("the helper server did not listen within %v:\n%s", hangGuard, h.logs)
	}
	return h
}

// kill kills the helper (SIGKILL) and waits until it has exited.
func (h *helper) kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.exited
}

// TestLoadKill: a server killed with SIGKILL in the middle of the load
// and started again on the same SQLite file loses nothing: clients retry
// what failed, and afterwards every chat's stored boundary is the
// reference's and every stored summary loads.
func TestLoadKill(t *testing.T) {
	if os.Getenv("RECAP_HELPER_SERVER") != "" {
		t.Skip()
	}
	requireLoad(t)
	llm := newFakeLLM(t, 2*time.Millisecond, 10*time.Millisecond)
	env := []string{"RECAP_OPENAI_BASE_URL=" + llm.URL, "RECAP_OPENAI_API_KEY=sk-test"}
	db := filepath.Join(t.TempDir(), "kill.db")
	args := []string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-db", db, "-trigger", strconv.Itoa(loadTrigger),
		"-window", strconv.Itoa(loadWindow), "-max-concurrent", "64", "-queue-wait", "1m", "-background=false", "-metrics=false", "-max-llm-calls", "1000", "-tenant-llm-per-minute", "1000000",
		// The killed server's leases block its chats until they expire
		// (see TestLeaseTakeover), which a request waits for (-lease-wait,
		// within -timeout); the fake LLM answers in milliseconds.
		"-lease-ttl", "1s", "-lease-wait", hangGuard.String(), "-timeout", (2 * hangGuard).String()}
	srv := startHelper(t, nil, env, args...)
	var mu sync.RWMutex // protects srv
	getBase := func() string { mu.RLock(); defer mu.RUnlock(); return srv.base }
	rep := retryingLoad(t, getBase, "kill", llm, 20, *loadTurns, func() {
		mu.RLock()
		old := srv
		mu.RUnlock()
		old.kill()
		restarted := startHelper(t, nil, env, args...)
		mu.Lock()
		srv = restarted
		mu.Unlock()
	})
	t.Logf("SIGKILL after 40%% of the requests: %s", rep)
}

// retriesAfterFault bounds how often retryingLoad sends a request again
// once the fault is over: the service is back, so a request may fail only
// for what the fault left behind (a lease of the dead server, a pooled
// connection the database ended), each failure at once.
const retriesAfterFault = 20

// retryingLoad drives clients chats of turns turns against getBase(), and
// once 40% of the requests are done runs fault, which breaks the service
// and returns once it is back (a server killed and started again, a
// database restarted). A request is sent until it gets a 200: one that
// fails before fault has returned is sent again once it has, one that
// fails after is sent again at once, retriesAfterFault times at most.
// Then it sends each chat's last turn once more and checks every chat's
// stored summary: never behind a boundary that a response reported (no
// summary lost), and the reference's boundary for a chat whose responses
// carried no warning (a chat summarized by the fallback, whose summary has
// another size, may summarize at other turns).
func retryingLoad(t *testing.T, getBase func() string, run string, llm *fakeLLM, clients, turns int, fault func()) string {
	t.Helper()
	var retries, warnings atomic.Int64
	total := clients * turns
	// Per chat: whether a response carried a warning (a fallback summary
	// or a failed Save: the chat's later boundaries may then differ from
	// the reference's), and the furthest boundary a response reported.
	warned := make([]atomic.Bool, clients)
	reported := make([]atomic.Int64, clients)
	client := &http.Client{Timeout: hangGuard}
	// The fault starts (start is closed) once 40% of the requests are
	// done, or once no client can go on without it (each has finished or
	// waits for the fault to end); restored is closed when it is over.
	start, restored := make(chan struct{}), make(chan struct{})
	var (
		mu         sync.Mutex // protects done, idle and started
		done, idle int        // requests done; clients finished or waiting for restored
		started    bool
	)
	progress := func(doneDelta, idleDelta int) {
		mu.Lock()
		defer mu.Unlock()
		done, idle = done+doneDelta, idle+idleDelta
		if !started && (done >= total*2/5 || idle == clients) {
			started = true
			close(start)
		}
	}
	// send posts turn n of chat c until it gets a 200.
	send := func(c, n int) error {
		body, _ := json.Marshal(map[string]any{"messages": loadChat(c, n)})
		after := 0 // attempts after the fault
		for {
			resp, err := client.Post(getBase()+"/api/chats/"+run+"-"+strconv.Itoa(c)+"/payload", "application/json", strings.NewReader(string(body)))
			if err == nil {
				var out payloadResponse
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					if out.Warning != "" {
						warnings.Add(1)
						warned[c].Store(true)
					}
					if i := loadIndex(c, n, out.Boundary); i > reported[c].Load() {
						reported[c].Store(i)
					}
					return nil
				}
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			select {
			case <-restored:
				if after++; after > retriesAfterFault {
					return fmt.Errorf("chat %d turn %d: %v (after %d attempts since the fault ended)", c, n, err, after)
				}
			default:
				progress(0, 1)
				<-restored
				progress(0, -1)
			}
			retries.Add(1)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer progress(0, 1)
			for n := 1; n <= turns; n++ {
				if err := send(c, n); err != nil {
					errs <- err
					return
				}
				progress(1, 0)
			}
		}()
	}
	received(t, start, "40% of the requests")
	func() {
		defer close(restored) // also if fault fails the test: no client is left waiting
		fault()
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A summarization whose Save failed during the fault was absorbed (a
	// 200 with a warning): the chat catches up on its next request, sent
	// here once for every chat, as its client's next turn would.
	for c := range clients {
		if err := send(c, turns); err != nil {
			t.Error(err)
		}
	}
	wrong := 0
	for c := range clients {
		_, boundary := loadReference(t, c, turns)
		id, err := storedBoundary(t, client, getBase(), run, c)
		stored := loadIndex(c, turns, id)
		switch {
		case err != nil:
			wrong++
			t.Errorf("chat %d: %v", c, err)
		case stored < reported[c].Load():
			wrong++
			t.Errorf("chat %d: stored boundary %q is behind one a response reported: a summary was lost", c, id)
		case !warned[c].Load() && id != boundary:
			wrong++
			t.Errorf("chat %d: stored boundary %q, want %q", c, id, boundary)
		case warned[c].Load() && stored < 0:
			wrong++
			t.Errorf("chat %d: no summary stored", c)
		}
	}
	return fmt.Sprintf("%d requests (+%d to catch up), %d retried, %d answered with a warning, %d LLM calls, %d chats with a wrong boundary",
		total, clients, retries.Load(), warnings.Load(), llm.calls.count(), wrong)
}

// TestLoadPostgresRestart: PostgreSQL restarted (pg_ctl restart -m fast)
// in the middle of the load: requests that fail meanwhile are retried,
// nothing is lost (see retryingLoad). It restarts the shared test server,
// so it runs only when RECAP_TEST_PG_RESTART=1 as well as RECAP_TEST_LONG=1
// (.ci/run runs it on its own, after the other tests), with PGDATA and
// PGBIN from .ci/postgres.sh.
func TestLoadPostgresRestart(t *testing.T) {
	requireLoad(t)
	if os.Getenv("RECAP_TEST_PG_RESTART") != "1" {
		t.Skip("RECAP_TEST_PG_RESTART=1 is not set: this test restarts the PostgreSQL server")
	}
	dsn := postgresDSN(t)
	data, bin := os.Getenv("PGDATA"), os.Getenv("PGBIN")
	if data == "" || bin == "" {
		t.Fatal("PGDATA and PGBIN are not set (eval the output of .ci/postgres.sh)")
	}
	llm := newFakeLLM(t, 2*time.Millisecond, 10*time.Millisecond)
	env := map[string]string{"RECAP_OPENAI_BASE_URL": llm.URL, "RECAP_OPENAI_API_KEY": "sk-test"}
	base := startServer(t, env, "-postgres", dsn, "-trigger", strconv.Itoa(loadTrigger), "-window", strconv.Itoa(loadWindow),
		"-max-concurrent", "64", "-queue-wait", "1m", "-timeout", "5s", "-max-llm-calls", "1000", "-tenant-llm-per-minute", "1000000",
		"-lease-ttl", "1s") // a lease whose release failed while the database was down expires soon
	run := fmt.Sprintf("pgrestart%d", time.Now().UnixNano())
	rep := retryingLoad(t, func() string { return base }, run, llm, 20, *loadTurns, func() {
		restart := fmt.Sprintf("'%s/pg_ctl' -D '%s' -w -t 60 -l '%s/server.log' restart -m fast", bin, data, data)
		cmd := exec.Command("sh", "-c", restart)
		if os.Getuid() == 0 {
			cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", restart)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("pg_ctl restart: %v\n%s", err, out)
		}
	})
	t.Logf("PostgreSQL restarted after 40%% of the requests: %s", rep)
}

// loadIndex returns the index of message id in loadChat(c, n), or -1.
func loadIndex(c, n int, id string) int64 {
	for i, m := range loadChat(c, n) {
		if m.ID == id {
			return int64(i)
		}
	}
	return -1
}
