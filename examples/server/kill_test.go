package main

import (
	"bufio"
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
	err := run(context.Background(), strings.Split(args, "\x1f"), os.Getenv, os.Stdout, os.Stderr)
	fmt.Fprintln(os.Stderr, "helper server:", err)
	os.Exit(1)
}

// startHelper starts the server as a child process and returns its base
// URL and the process.
func startHelper(t *testing.T, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
	cmd.Env = append(append(os.Environ(), env...), "RECAP_HELPER_SERVER="+strings.Join(args, "\x1f"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "listening" && !sent {
				addr <- fmt.Sprint(line["addr"])
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatal("the helper server exited before listening")
		}
		return "http://" + a, cmd
	case <-time.After(30 * time.Second):
		t.Fatal("the helper server did not start")
	}
	return "", nil
}

// TestLoadKill: a server killed with SIGKILL in the middle of the load
// and started again on the same SQLite file loses nothing: clients retry
// what failed, and afterwards every chat's stored boundary is the
// reference's and every stored summary loads.
func TestLoadKill(t *testing.T) {
	if os.Getenv("RECAP_HELPER_SERVER") != "" {
		t.Skip()
	}
	llm := newFakeLLM(t, 2*time.Millisecond, 10*time.Millisecond)
	env := []string{"RECAP_OPENAI_BASE_URL=" + llm.URL, "RECAP_OPENAI_API_KEY=sk-test"}
	db := filepath.Join(t.TempDir(), "kill.db")
	args := []string{"-insecure-no-auth", "-addr", "127.0.0.1:0", "-db", db, "-trigger", strconv.Itoa(loadTrigger),
		"-window", strconv.Itoa(loadWindow), "-max-concurrent", "64", "-queue-wait", "1m", "-background=false", "-metrics=false",
		// The killed server's leases block its chats until they expire
		// (see TestLeaseTakeover); the fake LLM answers in milliseconds.
		"-lease-ttl", "1s"}
	base, cmd := startHelper(t, env, args...)
	var mu sync.RWMutex // protects base
	getBase := func() string { mu.RLock(); defer mu.RUnlock(); return base }
	rep := retryingLoad(t, getBase, "kill", llm, 20, *loadTurns, func(done *atomic.Int64, total int64) {
		// Kill it once about 40% of the requests are done, then start it again.
		for done.Load() < total*2/5 {
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Error(err)
		}
		cmd.Wait()
		newBase, _ := startHelper(t, env, args...)
		mu.Lock()
		base = newBase
		mu.Unlock()
	})
	t.Logf("SIGKILL after 40%% of the requests: %s", rep)
}

// retryingLoad drives clients chats of turns turns against getBase(),
// each request retried (every 50 ms, at most 200 times) until it gets a
// 200, while fault runs; then it sends each chat's last turn once more
// and checks every chat's stored summary: never behind a boundary that a
// response reported (no summary lost), and the reference's boundary for a
// chat whose responses carried no warning (a chat summarized by the
// fallback, whose summary has another size, may summarize at other turns).
func retryingLoad(t *testing.T, getBase func() string, run string, llm *fakeLLM, clients, turns int, fault func(done *atomic.Int64, total int64)) string {
	t.Helper()
	var done, retries, warnings atomic.Int64
	total := int64(clients * turns)
	// Per chat: whether a response carried a warning (a fallback summary
	// or a failed Save: the chat's later boundaries may then differ from
	// the reference's), and the furthest boundary a response reported.
	warned := make([]atomic.Bool, clients)
	reported := make([]atomic.Int64, clients)
	client := &http.Client{Timeout: 30 * time.Second}
	// send posts turn n of chat c until it gets a 200.
	send := func(c, n int) error {
		body, _ := json.Marshal(map[string]any{"messages": loadChat(c, n)})
		for attempt := 0; ; attempt++ {
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
			if attempt == 200 {
				return fmt.Errorf("chat %d turn %d: %v", c, n, err)
			}
			retries.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= turns; n++ {
				if err := send(c, n); err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		}()
	}
	fault(&done, total)
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
		total, clients, retries.Load(), warnings.Load(), llm.calls.Load(), wrong)
}

// TestLoadPostgresRestart: PostgreSQL restarted (pg_ctl restart -m fast)
// in the middle of the load: requests that fail meanwhile are retried,
// nothing is lost (see retryingLoad). It restarts the
// shared test server, so it runs only when RECAP_TEST_PG_RESTART=1 (.ci/run
// runs it on its own, after the other tests), with PGDATA and PGBIN from
// .ci/postgres.sh.
func TestLoadPostgresRestart(t *testing.T) {
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
		"-max-concurrent", "64", "-queue-wait", "1m", "-timeout", "5s",
		"-lease-ttl", "1s") // a lease whose release failed while the database was down expires soon
	run := fmt.Sprintf("pgrestart%d", time.Now().UnixNano())
	rep := retryingLoad(t, func() string { return base }, run, llm, 20, *loadTurns, func(done *atomic.Int64, total int64) {
		for done.Load() < total*2/5 {
			time.Sleep(time.Millisecond)
		}
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
