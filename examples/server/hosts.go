package main

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
)

// loopbackHosts are the hosts always allowed, on any port.
var loopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// checkHost answers 403 to a request whose Host header is not one of
// allowed (names or addresses, on any port, compared without case) or a
// loopback one. A browser tricked by DNS rebinding sends the attacker's
// name as Host, so this is what keeps a page elsewhere from reading the
// service. /healthz and /readyz are exempt, for probes that address the service by an
// IP the operator does not know in advance.
func checkHost(log *slog.Logger, allowed []string) func(http.Handler) http.Handler {
	ok := make(map[string]bool)
	for _, h := range append(slices.Clone(loopbackHosts), allowed...) {
		ok[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host := r.Host
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
			if !ok[host] && r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
				fail(log, w, r, http.StatusForbidden, "host not allowed: add it with -allowed-hosts")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// CORS: what a preflight allows.
const (
	corsMethods = "GET, POST, DELETE"
	corsHeaders = "Authorization, Content-Type"
	corsMaxAge  = "600" // seconds a browser may cache a preflight
)

// cors answers CORS for the origins given (exact "scheme://host[:port]"
// strings; none: no CORS at all, so browsers keep other origins out).
// For an allowed origin it adds Access-Control-Allow-Origin to the answer
// and answers a preflight (OPTIONS with Access-Control-Request-Method)
// itself with 204, before authentication, since browsers send no
// credentials on one. A preflight from another origin is a 403 without
// CORS headers. Clients authenticate with an Authorization header, not
// cookies, so no Access-Control-Allow-Credentials is sent: a browser's
// fetch needs neither credentials: "include" nor cookies.
func cors(log *slog.Logger, origins []string) func(http.Handler) http.Handler {
	ok := make(map[string]bool)
	for _, o := range origins {
		ok[strings.TrimSuffix(o, "/")] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
			if origin == "" {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Add("Vary", "Origin")
			if !ok[origin] {
				if preflight {
					fail(log, w, r, http.StatusForbidden, "origin not allowed")
					return
				}
				next.ServeHTTP(w, r) // no CORS headers: the browser hides the answer
				return
			}
			w.Header().Set("Access-Control-Allow-Origin", origin)
			if preflight {
				w.Header().Set("Access-Control-Allow-Methods", corsMethods)
				w.Header().Set("Access-Control-Allow-Headers", corsHeaders)
				w.Header().Set("Access-Control-Max-Age", corsMaxAge)
				w.WriteHeader(http.StatusNoContent)
				return
			}
			w.Header().Set("Access-Control-Expose-Headers", "Retry-After")
			next.ServeHTTP(w, r)
		})
	}
}
