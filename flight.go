package recap

import "sync"

// flight is one summarization in progress for a chat, which concurrent
// Compress calls for that chat wait for instead of summarizing again.
type flight struct {
	done    chan struct{} // closed when it lands
	err     error         // the failure the waiters share, set before done closes
	waiters int           // calls that joined it; guarded by flights.mu (for tests)
}

// flights are the summarizations in progress, by chat.
type flights struct {
	mu sync.Mutex         // protects m
	m  map[string]*flight // chat ID to its flight
}

// join returns the chat's flight in progress, or starts one and reports
// that the caller leads it.
func (fs *flights) join(chatID string) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[chatID]; ok {
		f.waiters++
		return f, false
	}
	if fs.m == nil {
		fs.m = make(map[string]*flight)
	}
	f := &flight{done: make(chan struct{})}
	fs.m[chatID] = f
	return f, true
}

// land ends flight f, releasing its waiters with err.
func (fs *flights) land(chatID string, f *flight, err error) {
	fs.mu.Lock()
	if fs.m[chatID] == f {
		delete(fs.m, chatID)
	}
	fs.mu.Unlock()
	f.err = err
	close(f.done)
}

// waiting returns how many calls wait for the chat's flight in progress
// (0 if none is).
func (fs *flights) waiting(chatID string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[chatID]; ok {
		return f.waiters
	}
	return 0
}

// task is a background summarization of one chat (see WithBackground):
// pending until the caller's scheduler runs it, then running.
type task struct {
	chat chat // a copy of the chat it was scheduled for
	// Guarded by flights.mu:
	running bool // its scheduler started it
	taken   bool // a request took it over while it was pending: nothing to do
}

// tasks are the background summarizations pending or running, by chat.
type tasks struct {
	mu   sync.Mutex       // protects m and idle
	m    map[string]*task // chat ID to its task
	idle chan struct{}    // closed when m empties; nil while no one waits
}

// add registers a pending task for chatID, unless one is pending or
// running already; it reports whether it added t.
func (ts *tasks) add(chatID string, t *task) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, ok := ts.m[chatID]; ok {
		return false
	}
	if ts.m == nil {
		ts.m = make(map[string]*task)
	}
	ts.m[chatID] = t
	return true
}

// start marks t running and reports whether it still has work: false if
// a request took it over meanwhile.
func (ts *tasks) start(chatID string, t *task) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t.taken || ts.m[chatID] != t {
		return false
	}
	t.running = true
	return true
}

// takeOver removes the chat's task if it is still pending, so that the
// request calling it does the work; it leaves a running task alone.
func (ts *tasks) takeOver(chatID string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t, ok := ts.m[chatID]; ok && !t.running {
		t.taken = true
		ts.removeLocked(chatID, t)
	}
}

// remove ends t.
func (ts *tasks) remove(chatID string, t *task) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.removeLocked(chatID, t)
}

func (ts *tasks) removeLocked(chatID string, t *task) {
	if ts.m[chatID] == t {
		delete(ts.m, chatID)
	}
	if len(ts.m) == 0 && ts.idle != nil {
		close(ts.idle)
		ts.idle = nil
	}
}

// has reports whether a task for chatID is pending or running.
func (ts *tasks) has(chatID string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	_, ok := ts.m[chatID]
	return ok
}

// idleChan returns a channel closed when no task is pending or running,
// or nil if none is now.
func (ts *tasks) idleChan() <-chan struct{} {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.m) == 0 {
		return nil
	}
	if ts.idle == nil {
		ts.idle = make(chan struct{})
	}
	return ts.idle
}
