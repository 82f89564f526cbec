package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// DefaultMaxConnsPerIP bounds one client address's open connections
// (-max-conns-per-ip).
const DefaultMaxConnsPerIP = 256

// connLimiter bounds open connections: at most max in all and perIP from
// one client address (except trusted proxies, whose connections carry many
// clients). A connection beyond perIP is closed at once. When max are
// open, the connection idle longest (one that sent no request yet, or a
// keep-alive between requests) is closed to make room, so that idle
// connections, which cost a client nothing to open, cannot starve new
// ones (issue 23, F1); only when every connection is serving a request
// does a new one wait in the listen backlog. Refusals and sheddings are
// counted (refused, shed) and logged, throttled.
type connLimiter struct {
	net.Listener
	log     *slog.Logger
	max     int
	perIP   int
	trusted []netip.Prefix

	now func() time.Time

	mu     sync.Mutex
	cond   *sync.Cond
	conns  map[*limitedConn]struct{}
	byIP   map[netip.Addr]int
	open   int
	shed   int64 // connections closed to make room
	refuse int64 // connections over their address's share
}

// limitedConn is a connection the limiter tracks.
type limitedConn struct {
	net.Conn
	l     *connLimiter
	ip    netip.Addr
	once  sync.Once
	busy  bool      // serving a request (http.StateActive); guarded by l.mu
	since time.Time // when it last became idle or was opened; guarded by l.mu
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}

func newConnLimiter(ln net.Listener, log *slog.Logger, max, perIP int, trusted []netip.Prefix) *connLimiter {
	l := &connLimiter{Listener: ln, log: log, max: max, perIP: perIP, trusted: trusted, now: time.Now,
		conns: map[*limitedConn]struct{}{}, byIP: map[netip.Addr]int{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		l.mu.Lock()
		if !l.isTrusted(ip) && l.byIP[ip] >= l.perIP {
			l.refuse++
			n := l.refuse
			l.mu.Unlock()
			c.Close()
			l.log.Info("request rejected", "reason", "connections of one address over -max-conns-per-ip", "refused", n)
			continue
		}
		for l.open >= l.max {
			if idle := l.idlest(); idle != nil {
				l.shed++
				n := l.shed
				l.mu.Unlock()
				idle.Conn.Close() // its Close through the server releases it
				idle.once.Do(func() { l.release(idle) })
				l.log.Info("request rejected", "reason", "idle connection closed to make room (-max-conns)", "shed", n)
				l.mu.Lock()
				continue
			}
			l.cond.Wait() // every connection is serving: wait for one to close
		}
		l.pruneLocked(l.now())
		lc := &limitedConn{Conn: c, l: l, ip: ip, since: l.now()}
		l.conns[lc] = struct{}{}
		l.byIP[ip]++
		l.open++
		l.mu.Unlock()
		return lc, nil
	}
}

// Under pressure (at least pressureShare of max open), connections wait
// less for a request: one idle longer than pressureIdle, a keep-alive or
// one whose headers have not all arrived (slow headers), is closed when
// a new connection is accepted, instead of after the server's idle (30 s)
// or header (10 s) timeout.
const (
	pressureShare = 0.75
	pressureIdle  = 2 * time.Second
)

// pruneLocked closes, under pressure, the connections idle longer than
// pressureIdle at now. l.mu must be held; it is released while closing.
func (l *connLimiter) pruneLocked(now time.Time) {
	if float64(l.open) < pressureShare*float64(l.max) {
		return
	}
	var old []*limitedConn
	for c := range l.conns {
		if !c.busy && now.Sub(c.since) > pressureIdle {
			old = append(old, c)
		}
	}
	if len(old) == 0 {
		return
	}
	l.shed += int64(len(old))
	n := l.shed
	l.mu.Unlock()
	for _, c := range old {
		c.Close()
	}
	l.log.Info("request rejected", "reason", "idle connections closed under pressure", "closed", len(old), "shed", n)
	l.mu.Lock()
}

// idlest returns the open connection idle longest, or nil when all are
// serving a request. l.mu must be held.
func (l *connLimiter) idlest() *limitedConn {
	var best *limitedConn
	for c := range l.conns {
		if !c.busy && (best == nil || c.since.Before(best.since)) {
			best = c
		}
	}
	return best
}

// release forgets c.
func (l *connLimiter) release(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.byIP[c.ip]--; l.byIP[c.ip] <= 0 {
		delete(l.byIP, c.ip)
	}
	l.open--
	l.cond.Signal()
}

// connState is the http.Server's ConnState: it tells the limiter which
// connections are serving a request.
func (l *connLimiter) connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateActive:
		lc.busy = true
	case http.StateIdle:
		lc.busy, lc.since = false, l.now()
	case http.StateHijacked, http.StateClosed:
		lc.busy = false
	}
}

// counts returns how many connections were shed and refused.
func (l *connLimiter) counts() (shed, refused int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.shed, l.refuse
}

func (l *connLimiter) isTrusted(ip netip.Addr) bool {
	for _, p := range l.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// remoteIP is c's remote address without its port (the zero Addr if it
// has none).
func remoteIP(c net.Conn) netip.Addr {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// parsePrefixes parses a comma-separated list of addresses and CIDR
// prefixes.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range list(s) {
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, err
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
