package recap

import "sync"

// flight is one summarization in progress for a chat, which concurrent
// Compress calls for that chat wait for instead of summarizing again.
type flight struct {
	done chan struct{} // closed when it lands
	err  error         // the failure the waiters share, set before done closes
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
