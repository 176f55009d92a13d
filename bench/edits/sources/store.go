package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"
)

// ErrNotFound is returned when a key has no entry.
var ErrNotFound = errors.New("store: not found")

// Entry is one stored value with its metadata.
type Entry struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	Version   int             `json:"version"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// Store is a small versioned key-value store persisted to a JSON file.
type Store struct {
	mu      sync.RWMutex
	path    string
	entries map[string]Entry
}

// Open loads the store from path, creating an empty one if the file is missing.
func Open(path string) (*Store, error) {
	s := &Store{path: path, entries: map[string]Entry{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	var entries []Entry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("decode store: %w", err)
	}
	for _, e := range entries {
		s.entries[e.Key] = e
	}
	return s, nil
}

// Get returns the entry for key.
func (s *Store) Get(key string) (Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[key]
	if !ok {
		return Entry{}, ErrNotFound
	}
	return e, nil
}

// Put stores value under key and bumps its version.
func (s *Store) Put(key string, value any) (Entry, error) {
	raw, err := json.Marshal(value)
	if err != nil {
		return Entry{}, fmt.Errorf("encode value: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[key]
	e.Key = key
	e.Value = raw
	e.Version++
	e.UpdatedAt = time.Now().UTC()
	s.entries[key] = e
	if err := s.saveLocked(); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// Delete removes key; deleting a missing key is not an error.
func (s *Store) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[key]; !ok {
		return nil
	}
	delete(s.entries, key)
	if err := s.saveLocked(); err != nil {
		return err
	}
	return nil
}

// Keys lists the keys in sorted order.
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.entries))
	for k := range s.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *Store) saveLocked() error {
	entries := make([]Entry, 0, len(s.entries))
	for _, e := range s.entries {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return fmt.Errorf("encode store: %w", err)
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write store: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("replace store: %w", err)
	}
	return nil
}
