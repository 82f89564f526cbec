package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	keyAlice  = "alice-key-0123456789"
	keyAlice2 = "alice-key-second-0123"
	keyBob    = "bob-key-abcdefghijklmn"
)

func sha(s string) string { h := sha256.Sum256([]byte(s)); return "sha256:" + hex.EncodeToString(h[:]) }

// keyFile writes a key file for alice (two keys, one as a hash) and bob,
// and returns its path.
func keyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	body := "# tenant key\nalice " + keyAlice + "\n\nalice\t" + sha(keyAlice2) + "\n  bob " + keyBob + "  \n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseKeys(t *testing.T) {
	tests := []struct {
		name, reason, file string
		want               string // in the error; "" for none
	}{
		{"OK", "comments, blank lines, hashes, several keys per tenant", "# c\nalice " + keyAlice + "\nalice " + sha(keyAlice2) + "\n\nbob " + keyBob + "\n", ""},
		{"Duplicate", "a key belongs to one tenant", "alice " + keyAlice + "\nbob " + keyAlice + "\n", "line 2: the key of line 1 again"},
		{"DuplicateHash", "a key and its hash are the same key", "alice " + keyAlice + "\nbob " + sha(keyAlice) + "\n", "line 2: the key of line 1 again"},
		{"Fields", "one pair a line", "alice\n", "line 1: want TENANT KEY"},
		{"Short", "a clear key of at least 16 bytes", "alice k3y-tiny\n", "shorter than 16 bytes"},
		{"BadHash", "sha256: takes 64 hex digits", "alice sha256:abc\n", "line 1: sha256: want 64 hex digits"},
		{"BadTenant", "tenants are safe to log", "al/ice " + keyAlice + "\n", "line 1: tenant"},
		{"Empty", "a file without keys", "# nothing\n", "no TENANT KEY line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := parseKeys(strings.NewReader(tt.file))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("%s: %v", tt.reason, err)
				}
				for key, tenant := range map[string]string{keyAlice: "alice", keyAlice2: "alice", keyBob: "bob"} {
					if got, ok := k.tenant(key); !ok || got != tenant {
						t.Errorf("tenant of %q = %q, %v; want %q", key, got, ok, tenant)
					}
				}
				if _, ok := k.tenant("nobody-key-0123456789"); ok {
					t.Error("an unknown key has a tenant")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%s: error %v, want %q", tt.reason, err, tt.want)
			}
			for _, secret := range []string{keyAlice, "k3y-tiny"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error %q names a key", err)
				}
			}
		})
	}
}

func TestStoreKey(t *testing.T) {
	tests := []struct{ tenant, chat string }{
		{"alice", "chat-1"}, {"", "x"}, {"a", "1:b/c"}, {"1:b", "c"}, {"bob", ""}, {"bob", "/../alice"},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		key := storeKey(tt.tenant, tt.chat)
		tenant, chat, ok := splitStoreKey(key)
		if !ok || tenant != tt.tenant || chat != tt.chat {
			t.Errorf("splitStoreKey(%q) = %q, %q, %v; want %q, %q", key, tenant, chat, ok, tt.tenant, tt.chat)
		}
		if other, dup := seen[key]; dup {
			t.Errorf("%q and %q share the key %q", other, tt.tenant+" "+tt.chat, key)
		}
		seen[key] = tt.tenant + " " + tt.chat
	}
}

// FuzzStoreKey: a tenant's chat ID never yields another tenant's key.
func FuzzStoreKey(f *testing.F) {
	f.Add("alice", "c", "bob", "c")
	f.Add("a", "1:b/c", "1:b", "c")
	f.Fuzz(func(t *testing.T, t1, c1, t2, c2 string) {
		if storeKey(t1, c1) == storeKey(t2, c2) && (t1 != t2 || c1 != c2) {
			t.Fatalf("(%q, %q) and (%q, %q) share a key", t1, c1, t2, c2)
		}
	})
}

func do(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// TestTenants: without a valid key every /api/ route is a 401; with one,
// a tenant can neither read, overwrite, delete nor detect another tenant's
// chat of the same ID, and can read and delete its own summary.
func TestTenants(t *testing.T) {
	base := startServer(t, nil, "-api-keys", keyFile(t), "-trigger", "100")
	chat := base + "/api/chats/shared/"
	for _, tt := range []struct{ name, method, path, key, body string }{
		{"NoKey", "POST", "payload", "", chatJSON(t, 8)},
		{"WrongKey", "POST", "payload", "wrong-key-0123456789", chatJSON(t, 8)},
		{"Basic", "POST", "payload", "", chatJSON(t, 8)},
		{"Hash", "POST", "payload", sha(keyAlice)[len("sha256:"):], chatJSON(t, 8)},
		{"GetSummary", "GET", "summary", "", ""},
		{"DeleteSummary", "DELETE", "summary", "", ""},
		{"Summarize", "POST", "../../summarize", "", chatJSON(t, 2)},
	} {
		status, body := do(t, tt.method, chat+tt.path, tt.key, tt.body)
		if status != http.StatusUnauthorized || !strings.Contains(body, "unauthorized") {
			t.Errorf("%s: %d %s, want 401", tt.name, status, body)
		}
	}

	// Bob summarizes his chat "shared".
	if status, body := do(t, "POST", chat+"payload", keyBob, chatJSON(t, 8)); status != 200 || !strings.Contains(body, `"boundary":"a7"`) {
		t.Fatalf("bob's payload: %d %s", status, body)
	}
	bobSummary := func() string {
		status, body := do(t, "GET", chat+"summary", keyBob, "")
		if status != 200 || !strings.Contains(body, `"lastMessageId":"a7"`) {
			t.Fatalf("bob's summary: %d %s", status, body)
		}
		return body
	}
	before := bobSummary()

	// Alice cannot read it, nor learn that it exists.
	if status, body := do(t, "GET", chat+"summary", keyAlice, ""); status != 404 {
		t.Errorf("alice reads bob's summary: %d %s", status, body)
	}
	// Her history ending on his boundary is a new chat of hers: no stale
	// flag, no summary of his, and her own summary is saved under her key.
	status, body := do(t, "POST", chat+"payload", keyAlice2, chatJSON(t, 8))
	if status != 200 || strings.Contains(body, `"stale"`) || !strings.Contains(body, `"summarized":true`) {
		t.Errorf("alice's payload on the same chat ID: %d %s", status, body)
	}
	if status, body := do(t, "DELETE", chat+"summary", keyAlice, ""); status != 204 {
		t.Errorf("alice deletes her summary: %d %s", status, body)
	}
	if status, _ := do(t, "GET", chat+"summary", keyAlice, ""); status != 404 {
		t.Errorf("alice's summary after DELETE: %d, want 404", status)
	}
	if after := bobSummary(); after != before {
		t.Errorf("bob's summary changed by alice:\nbefore %s\nafter  %s", before, after)
	}
	// Bob deletes his own; DELETE is idempotent.
	for range 2 {
		if status, body := do(t, "DELETE", chat+"summary", keyBob, ""); status != 204 {
			t.Errorf("bob deletes his summary: %d %s", status, body)
		}
	}
	if status, _ := do(t, "GET", chat+"summary", keyBob, ""); status != 404 {
		t.Errorf("bob's summary after DELETE: %d, want 404", status)
	}
}

func TestAuthFlags(t *testing.T) {
	noEnv := func(string) string { return "" }
	db := filepath.Join(t.TempDir(), "x.db")
	tests := []struct {
		name, reason string
		args         []string
		want         string
	}{
		{"Neither", "without keys or -insecure-no-auth the server does not start", []string{"-addr", "127.0.0.1:0"}, "no API keys"},
		{"Both", "one or the other", []string{"-addr", "127.0.0.1:0", "-insecure-no-auth", "-api-keys", keyFile(t)}, "choose one"},
		{"NoAuthAllInterfaces", "no authentication only on loopback", []string{"-addr", ":0", "-insecure-no-auth"}, "not a loopback address"},
		{"NoAuthPublicIP", "no authentication only on loopback", []string{"-addr", "192.0.2.1:0", "-insecure-no-auth"}, "not a loopback address"},
		{"MissingFile", "the key file must exist", []string{"-addr", "127.0.0.1:0", "-api-keys", filepath.Join(t.TempDir(), "nope")}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), append(tt.args, "-db", db), noEnv, io.Discard, io.Discard, time.Now)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: %v, want an error with %q", tt.reason, err, tt.want)
			}
		})
	}
	t.Run("EnvFile", func(t *testing.T) {
		file := keyFile(t)
		base := startServer(t, map[string]string{"RECAP_API_KEYS_FILE": file}, "-api-keys", "")
		if status, body := do(t, "GET", base+"/api/chats/x/summary", "", ""); status != 401 {
			t.Errorf("RECAP_API_KEYS_FILE: no key: %d %s, want 401", status, body)
		}
		if status, body := do(t, "GET", base+"/api/chats/x/summary", keyBob, ""); status != 404 {
			t.Errorf("RECAP_API_KEYS_FILE: bob: %d %s, want 404", status, body)
		}
	})
}
