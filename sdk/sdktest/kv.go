package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
)

// KV is an in-memory sdk.KV for tests: values go through JSON as they do
// in Hearth's store. The zero value is ready.
type KV struct {
	mu     sync.Mutex
	values map[string]json.RawMessage
}

var _ sdk.KV = (*KV)(nil)

// Get implements sdk.KV.
func (k *KV) Get(_ context.Context, key string, v any) (bool, error) {
	k.mu.Lock()
	raw, ok := k.values[key]
	k.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

// Set implements sdk.KV.
func (k *KV) Set(_ context.Context, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("kv %q: the value cannot be encoded as JSON: %w", key, err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.values == nil {
		k.values = map[string]json.RawMessage{}
	}
	k.values[key] = raw
	return nil
}

// Delete implements sdk.KV.
func (k *KV) Delete(_ context.Context, key string) error {
	k.mu.Lock()
	delete(k.values, key)
	k.mu.Unlock()
	return nil
}
