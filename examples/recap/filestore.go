package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/recapgo/recap"
)

// fileVersion is the version of the store file's format.
const fileVersion = 1

// sqliteHeader starts a SQLite database: what -store named before the CLI
// kept its state in JSON.
var sqliteHeader = []byte("SQLite format 3\x00")

// A fileStore is a recap.Store in a JSON file, for the CLI:
//
//	{"version": 1, "chats": {"CHAT ID": {"text": ..., "lastMessageId": ..., "covered": [...], "digests": [...]}}}
//
// A chat's value is the JSON of recap.Summary. A file written before
// Summary.Digests existed has no "digests": its summaries load without
// them and gain them at their next save, so the format's version is still
// 1.
//
// A Save reads the file, compares the chat's stored summary with prev, and
// replaces the file by a new one written beside it (rename is atomic), so
// a reader never sees half a file. The compare-and-swap holds between the
// goroutines of one process; two processes saving into one file at the
// same instant may lose one of the saves (the CLI runs once per command).
type fileStore struct {
	path string
	mu   sync.Mutex // serializes Saves
}

// storeFile is the file's JSON.
type storeFile struct {
	Version int                      `json:"version"`
	Chats   map[string]recap.Summary `json:"chats"`
}

// openFileStore returns the store of path, after checking that the file, if
// it exists, is one.
func openFileStore(path string) (*fileStore, error) {
	s := &fileStore{path: path}
	if _, err := s.read(); err != nil {
		return nil, err
	}
	return s, nil
}

// read returns the file's content; a missing file is an empty store.
func (s *fileStore) read() (storeFile, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return storeFile{Version: fileVersion, Chats: map[string]recap.Summary{}}, nil
	}
	if err != nil {
		return storeFile{}, err
	}
	if bytes.HasPrefix(data, sqliteHeader) {
		return storeFile{}, fmt.Errorf("%s is a SQLite database, the store of earlier versions of this CLI; it now keeps summaries in a JSON file: name a new file (the server and examples/sqlstore still read SQLite)", s.path)
	}
	var f storeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return storeFile{}, fmt.Errorf("%s is not a store file: %v", s.path, err)
	}
	if f.Version != fileVersion {
		return storeFile{}, fmt.Errorf("%s: store file version %d, want %d", s.path, f.Version, fileVersion)
	}
	if f.Chats == nil {
		f.Chats = map[string]recap.Summary{}
	}
	return f, nil
}

// Load returns the summary of chatID, or the zero Summary.
func (s *fileStore) Load(ctx context.Context, chatID string) (recap.Summary, error) {
	if err := ctx.Err(); err != nil {
		return recap.Summary{}, err
	}
	f, err := s.read()
	return f.Chats[chatID], err
}

// Save stores next for chatID if the stored summary equals prev, and
// returns recap.ErrConflict otherwise; a failed write leaves the file as
// it was.
func (s *fileStore) Save(ctx context.Context, chatID string, prev, next recap.Summary) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if !f.Chats[chatID].Equal(prev) {
		return recap.ErrConflict
	}
	f.Chats[chatID] = next
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}
