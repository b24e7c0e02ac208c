package settings

import (
	"encoding/json"
	"fmt"
)

// Gate is asked before a setting of its namespace is stored: a plugin
// whose settings live in its own code (a PKU harness preference) takes
// the value first, and an error refuses the change. The error's text is
// shown to whoever made the change.
type Gate func(key string, raw json.RawMessage) error

// SetGate installs ns's gate (nil removes it). A running plugin process
// installs one for its preferences and removes it when it stops; without
// one (the CLI, the plugin not running) the value is stored, and the
// plugin takes it when it next starts.
func (s *Service) SetGate(ns string, g Gate) {
	if g == nil {
		s.gates.Delete(ns)
		return
	}
	s.gates.Store(ns, g)
}

// gate asks ns's gate, if any, about key.
func (s *Service) gate(ns, key string, raw json.RawMessage) error {
	v, ok := s.gates.Load(ns)
	if !ok {
		return nil
	}
	if err := v.(Gate)(key, raw); err != nil {
		return fmt.Errorf("%w: %s.%s: %w", ErrInvalid, ns, key, err)
	}
	return nil
}
