package config

// DefaultRecallTokens is how many tokens of recalled memory a request
// may carry when config.json does not say.
const DefaultRecallTokens = 400

// MemoryConfig is config.json's "memory": how the agent uses its memory
// by itself.
type MemoryConfig struct {
	// RecallTokens is the most tokens of memory recalled for a message
	// and shown to the model with it (default 400); 0 turns recall off.
	RecallTokens *int `json:"recall_tokens,omitempty"`
}

// RecallTokens returns the recall budget in tokens; 0 means recall is
// off.
func (f *File) RecallTokens() int {
	if f.Memory == nil || f.Memory.RecallTokens == nil {
		return DefaultRecallTokens
	}
	return max(*f.Memory.RecallTokens, 0)
}
