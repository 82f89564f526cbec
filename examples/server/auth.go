package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// minKeyBytes is the shortest API key the key file may hold in clear: 16
// bytes, 128 bits if random. A sha256:<hex> key is not checked: the file
// does not know the key.
const minKeyBytes = 16

// tenantName is what a tenant may be called: short, and safe to log and to
// use as a metric label.
var tenantName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// keyring maps API keys, by SHA-256, to their tenants. It keeps no key,
// only hashes. The zero keyring holds no key. A keyring is read-only once
// parsed, so it is safe for concurrent use by multiple goroutines.
type keyring struct {
	hashes  [][sha256.Size]byte
	tenants []string // tenants[i] owns hashes[i]
}

// parseKeys reads a key file: one "TENANT KEY" pair a line, separated by
// whitespace, where KEY is the key itself or "sha256:" and the hex SHA-256
// of the key; empty lines and lines starting with # are ignored. A tenant
// may have several keys; a key (or hash) given twice is an error, as is a
// file without keys. Errors name the line, never the key.
func parseKeys(r io.Reader) (*keyring, error) {
	k := &keyring{}
	seen := make(map[[sha256.Size]byte]int) // hash to line
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("api keys: line %d: want TENANT KEY, got %d fields", n, len(f))
		}
		tenant, key := f[0], f[1]
		if !tenantName.MatchString(tenant) {
			return nil, fmt.Errorf("api keys: line %d: tenant %s: want 1 to 64 of A-Z a-z 0-9 . _ -", n, quote(tenant))
		}
		var h [sha256.Size]byte
		if hexKey, ok := strings.CutPrefix(key, "sha256:"); ok {
			b, err := hex.DecodeString(hexKey)
			if err != nil || len(b) != sha256.Size {
				return nil, fmt.Errorf("api keys: line %d: sha256: want %d hex digits", n, 2*sha256.Size)
			}
			copy(h[:], b)
		} else {
			if len(key) < minKeyBytes {
				return nil, fmt.Errorf("api keys: line %d: key of tenant %s is shorter than %d bytes", n, tenant, minKeyBytes)
			}
			h = sha256.Sum256([]byte(key))
		}
		if prev, dup := seen[h]; dup {
			return nil, fmt.Errorf("api keys: line %d: the key of line %d again: a key belongs to one tenant", n, prev)
		}
		seen[h] = n
		k.hashes = append(k.hashes, h)
		k.tenants = append(k.tenants, tenant)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("api keys: %w", err)
	}
	if len(k.hashes) == 0 {
		return nil, fmt.Errorf("api keys: no TENANT KEY line")
	}
	return k, nil
}

// tenant returns the tenant of key. It compares the key's hash with every
// hash in constant time, so that neither the time taken nor an early exit
// tells how much of a guess was right or which line matched.
// single reports whether the keys are of one tenant.
func (k *keyring) single() bool {
	for _, t := range k.tenants {
		if t != k.tenants[0] {
			return false
		}
	}
	return true
}

func (k *keyring) tenant(key string) (string, bool) {
	h := sha256.Sum256([]byte(key))
	found := -1
	for i := range k.hashes {
		if subtle.ConstantTimeCompare(h[:], k.hashes[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return k.tenants[found], true
}

type tenantKey struct{}

// tenantFrom returns the tenant that requireTenant put in ctx.
func tenantFrom(ctx context.Context) string {
	t, _ := ctx.Value(tenantKey{}).(string)
	return t
}

// devTenant is the tenant of every request with -insecure-no-auth.
const devTenant = ""

// requireTenant answers 401 to a request without a valid
// "Authorization: Bearer KEY" header, and passes the others on with their
// tenant in the context. With a nil keyring (-insecure-no-auth) every
// request is devTenant's.
func requireTenant(log *slog.Logger, keys *keyring) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tenant := devTenant
			if keys != nil {
				var ok bool
				key, isBearer := cutBearer(r.Header.Get("Authorization"))
				if isBearer {
					tenant, ok = keys.tenant(key)
				}
				if !ok {
					w.Header().Set("WWW-Authenticate", `Bearer realm="recap"`)
					fail(log, w, r, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer KEY with a valid key")
					return
				}
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, tenant)))
		})
	}
}

// cutBearer returns the credentials of an "Authorization: Bearer KEY"
// header (the scheme is case-insensitive, RFC 7235).
func cutBearer(h string) (string, bool) {
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

// storeKey returns the chat ID under which the Compressor and the Store
// keep chat of tenant: the tenant's length in decimal, a colon, the
// tenant, a slash and the chat's ID ("5:alice/chat-1"). The length prefix
// makes the encoding injective: the tenant is read back by its length,
// never by searching for a separator, so no chat ID (whatever bytes it
// holds, slashes and colons included) can name a key of another tenant.
// The Compressor's per-chat state (shared summarizations, background
// tasks) is keyed by it too, so tenants share nothing there either.
func storeKey(tenant, chat string) string {
	return strconv.Itoa(len(tenant)) + ":" + tenant + "/" + chat
}

// splitStoreKey is the inverse of storeKey.
func splitStoreKey(key string) (tenant, chat string, ok bool) {
	n, rest, ok := strings.Cut(key, ":")
	l, err := strconv.Atoi(n)
	if !ok || err != nil || l < 0 || l >= len(rest) || rest[l] != '/' || strconv.Itoa(l) != n {
		return "", "", false
	}
	return rest[:l], rest[l+1:], true
}
