package xbot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

// kvPrefix and kvIndex place the xbot storage in the plugin's KV: each key
// under kvPrefix, and the list of keys (KV cannot list) under kvIndex.
const (
	kvPrefix = "xbot.storage/"
	kvIndex  = "xbot.storage.keys"
)

// kvStorage is StorageAccessor over the plugin's Hearth KV, so the values
// persist where every plugin's do and leave with the plugin.
type kvStorage struct {
	kv sdk.KV
	mu *sync.Mutex // shared by every accessor of one plugin: the index is one value
}

var errNoKV = errors.New("xbot: this host gives the plugin no storage")

// Bounds of a plugin's xbot storage. The key list is one KV value that
// Set rewrites for each new key, so the number of keys is bounded with it.
const (
	MaxStorageKeys       = 1000     // keys per plugin
	MaxStorageKeyBytes   = 256      // bytes of one key
	MaxStorageValueBytes = 64 << 10 // bytes of one value
)

// ErrStorageLimit is wrapped by the error of a Set past a bound above.
var ErrStorageLimit = errors.New("xbot storage limit")

// checkSet refuses an empty or too long key and a too long value.
func checkSet(key, value string) error {
	switch {
	case key == "":
		return errors.New("xbot storage: the key is empty")
	case len(key) > MaxStorageKeyBytes:
		return fmt.Errorf("xbot storage: key of %d bytes, at most %d: %w", len(key), MaxStorageKeyBytes, ErrStorageLimit)
	case len(value) > MaxStorageValueBytes:
		return fmt.Errorf("xbot storage: value of %q has %d bytes, at most %d: %w", key, len(value), MaxStorageValueBytes, ErrStorageLimit)
	}
	return nil
}

func (s kvStorage) Get(key string) (string, bool) {
	if s.kv == nil {
		return "", false
	}
	var v string
	ok, err := s.kv.Get(context.Background(), kvPrefix+key, &v)
	if err != nil || !ok {
		return "", false
	}
	return v, true
}

func (s kvStorage) Set(key, value string) error {
	if s.kv == nil {
		return errNoKV
	}
	if err := checkSet(key, value); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := context.Background()
	keys, err := s.index(ctx)
	if err != nil {
		return err
	}
	i, found := slices.BinarySearch(keys, key)
	if !found && len(keys) >= MaxStorageKeys {
		return fmt.Errorf("xbot storage: setting %q: the plugin has %d keys, at most %d (delete some first): %w",
			key, len(keys), MaxStorageKeys, ErrStorageLimit)
	}
	// A new key joins the index before its value is written: a process
	// killed in between leaves a listed key without a value (Get finds
	// nothing, Clear deletes it), never a value no index lists or counts.
	if !found {
		if err := s.setIndex(ctx, slices.Insert(keys, i, key)); err != nil {
			return err
		}
	}
	if err := s.kv.Set(ctx, kvPrefix+key, value); err != nil {
		return fmt.Errorf("xbot storage: setting %q: %w", key, err)
	}
	return nil
}

func (s kvStorage) Delete(key string) error {
	if s.kv == nil {
		return errNoKV
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := context.Background()
	keys, err := s.index(ctx)
	if err != nil {
		return err
	}
	if err := s.kv.Delete(ctx, kvPrefix+key); err != nil {
		return fmt.Errorf("xbot storage: deleting %q: %w", key, err)
	}
	if i, found := slices.BinarySearch(keys, key); found {
		return s.setIndex(ctx, slices.Delete(keys, i, i+1))
	}
	return nil
}

func (s kvStorage) Keys() []string {
	if s.kv == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keys, _ := s.index(context.Background())
	return keys
}

func (s kvStorage) Clear() error {
	if s.kv == nil {
		return errNoKV
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := context.Background()
	keys, err := s.index(ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.kv.Delete(ctx, kvPrefix+k); err != nil {
			return fmt.Errorf("xbot storage: deleting %q: %w", k, err)
		}
	}
	return s.setIndex(ctx, nil)
}

func (s kvStorage) index(ctx context.Context) ([]string, error) {
	var keys []string
	if _, err := s.kv.Get(ctx, kvIndex, &keys); err != nil {
		return nil, fmt.Errorf("xbot storage: reading the key list: %w", err)
	}
	slices.Sort(keys)
	return keys, nil
}

func (s kvStorage) setIndex(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		if err := s.kv.Delete(ctx, kvIndex); err != nil {
			return fmt.Errorf("xbot storage: writing the key list: %w", err)
		}
		return nil
	}
	if err := s.kv.Set(ctx, kvIndex, keys); err != nil {
		return fmt.Errorf("xbot storage: writing the key list: %w", err)
	}
	return nil
}

// slogLogger is Logger over the plugin's Hearth logger (which masks
// secrets and names the plugin).
type slogLogger struct {
	l     *slog.Logger
	bound []Field
}

func (g slogLogger) log(level slog.Level, msg string, fields []Field) {
	if !g.l.Enabled(context.Background(), level) {
		return
	}
	attrs := make([]any, 0, 2*(len(g.bound)+len(fields)))
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.Key] = true
	}
	for _, f := range g.bound {
		if !seen[f.Key] { // a per-call field wins over a bound one
			attrs = append(attrs, f.Key, f.Value)
		}
	}
	for _, f := range fields {
		attrs = append(attrs, f.Key, f.Value)
	}
	g.l.Log(context.Background(), level, msg, attrs...)
}

func (g slogLogger) Debug(msg string, fields ...Field) { g.log(slog.LevelDebug, msg, fields) }
func (g slogLogger) Info(msg string, fields ...Field)  { g.log(slog.LevelInfo, msg, fields) }
func (g slogLogger) Warn(msg string, fields ...Field)  { g.log(slog.LevelWarn, msg, fields) }
func (g slogLogger) Error(msg string, fields ...Field) { g.log(slog.LevelError, msg, fields) }
func (g slogLogger) Debugf(format string, args ...any) {
	g.log(slog.LevelDebug, fmt.Sprintf(format, args...), nil)
}
func (g slogLogger) Infof(format string, args ...any) {
	g.log(slog.LevelInfo, fmt.Sprintf(format, args...), nil)
}
func (g slogLogger) Warnf(format string, args ...any) {
	g.log(slog.LevelWarn, fmt.Sprintf(format, args...), nil)
}
func (g slogLogger) Errorf(format string, args ...any) {
	g.log(slog.LevelError, fmt.Sprintf(format, args...), nil)
}

func (g slogLogger) WithField(key string, value any) Logger {
	return g.WithFields(Field{Key: key, Value: value})
}

func (g slogLogger) WithFields(fields ...Field) Logger {
	return slogLogger{l: g.l, bound: append(slices.Clip(g.bound), fields...)}
}
