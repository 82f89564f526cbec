package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/storetest"
)

func TestFileStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) recap.Store {
		s, err := openFileStore(filepath.Join(t.TempDir(), "store.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A summary saved by one store is loaded by another on the same file, as
// by the next run of the CLI.
func TestFileStoreAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chats.json")
	ctx := context.Background()
	a, err := openFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := recap.Summary{Text: "s", LastMessageID: "m4", Covered: []string{"m1", "m2", "m3", "m4"}}
	if err := a.Save(ctx, "c", recap.Summary{}, sum); err != nil {
		t.Fatal(err)
	}
	b, err := openFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Load(ctx, "c")
	if err != nil || !got.Equal(sum) {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, sum)
	}
	if err := b.Save(ctx, "c", recap.Summary{}, sum); !errors.Is(err, recap.ErrConflict) {
		t.Errorf("stale prev: err = %v, want ErrConflict", err)
	}
	left, _ := filepath.Glob(path + ".*")
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A file written before Summary.Digests existed loads, without Digests,
// and its summaries can be replaced by ones with Digests.
func TestFileStoreWithoutDigests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chats.json")
	old := `{"version": 1, "chats": {"c": {"text": "s", "lastMessageId": "m2", "covered": ["m1", "m2"]}}}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := openFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	want := recap.Summary{Text: "s", LastMessageID: "m2", Covered: []string{"m1", "m2"}}
	got, err := s.Load(ctx, "c")
	if err != nil || !got.Equal(want) || got.Digests != nil {
		t.Fatalf("Load = %#v, %v; want %#v", got, err, want)
	}
	next := recap.Summary{Text: "s2", LastMessageID: "m3", Covered: []string{"m1", "m2", "m3"}, Digests: []string{"0a1b2c3d", "~4e5f6a7b", "8c9d0e1f"}}
	if err := s.Save(ctx, "c", got, next); err != nil {
		t.Fatalf("Save over a summary without Digests: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"digests": [`) {
		t.Errorf("the file lacks the digests:\n%s", data)
	}
	if got, err := s.Load(ctx, "c"); err != nil || !got.Equal(next) {
		t.Fatalf("Load = %+v, %v; want %+v", got, err, next)
	}
}

func TestFileStoreRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, err string
	}{
		{"sqlite", "SQLite format 3\x00\x10\x00", "SQLite database"},
		{"not JSON", "hello", "not a store file"},
		{"other version", `{"version": 2, "chats": {}}`, "version 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := openFileStore(path); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err = %v, want one saying %q", err, tt.err)
			}
		})
	}
}
