// Package memoryplugin is Hearth's built-in memory plugin, named "memories"
// ("memory" is a name reserved for Hearth itself): the tools with which
// the agent remembers facts, recalls and searches them, adds knowledge,
// and forgets or corrects what it remembered. It is written
// only against sdk/.
//
// A fact is one document of the document memory (title "fact", id from
// its text), optionally with a subject-relation-object triple in the
// graph memory. Whose memory it is comes from the conversation the tool
// is called in: the host binds the call to the conversation's scope.
//
// memories__remember is always offered (its schema is small); the other
// tools are on demand, loaded with plugins__use, so they cost nothing in
// requests that do not use them.
//
// The results tell the host, in their metadata, which facts the model
// was shown and which it deleted or corrected (sdk.MetaMemoryShown,
// sdk.MetaMemoryDeleted, sdk.MetaMemoryCorrected), so that conversations shown a
// fact since changed get a correction line (the PKU document's
// CONTEXT_MARK).
package memoryplugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/sdk"
)

// Name is the plugin's registered name (sdk.MemoryPluginName: the host
// reads the correction metadata from this plugin only).
const Name = sdk.MemoryPluginName

func init() { sdk.RegisterFactory(Name, New) }

// FactTitle is the title of the document memory's fact documents.
const FactTitle = "fact"

// MaxFactRunes bounds a fact: a fact is a sentence, not a document.
const MaxFactRunes = 500

// Plugin is the memory plugin.
type Plugin struct {
	name string
	s    *sdk.PluginSDK
}

var (
	_ sdk.Plugin           = (*Plugin)(nil)
	_ sdk.ManifestProvider = (*Plugin)(nil)
)

// New is the plugin's factory; it takes no configuration.
func New(name string, _ map[string]any) (sdk.Plugin, error) {
	return &Plugin{name: name}, nil
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.name }

// Stop does nothing: the memory belongs to the host.
func (p *Plugin) Stop() error { return nil }

// Manifest describes the plugin. Writing facts is local data: auto
// unless the user changes it (a tainted turn still asks, as for every
// write). It reads every writer's entries of the conversation, as the
// agent's own recall does.
func (p *Plugin) Manifest() sdk.Manifest {
	return sdk.Manifest{
		ID: p.name, Name: "记忆", Description: "让助手记住、回忆、更正和忘记事实，并查找知识库。", Version: "1.0.0",
		Icon: "brain", Scopes: []string{}, Capabilities: []string{sdk.CapabilityMemoryShared},
		DefaultModes: map[sdk.Effect]sdk.Mode{sdk.EffectWrite: sdk.ModeAuto},
		I18n: &sdk.ManifestI18n{En: &sdk.Translation{Name: "Memory",
			Description: "Lets the agent remember, recall, correct and forget facts, and search the knowledge base."}},
	}
}

// Start registers the tools.
func (p *Plugin) Start(s *sdk.PluginSDK) error {
	p.s = s
	return errors.Join(
		sdk.AddTool(s, sdk.ToolDef{
			Name: "remember", Title: "记住", Effect: sdk.EffectWrite,
			Description: "Remember a fact when the user asks (记住…, remember that…).",
		}, p.remember),
		sdk.AddTool(s, sdk.ToolDef{
			// Untrusted: recall and search return every writer's entries
			// of the conversation (memory.shared), other plugins' and, in a
			// group, what guests had remembered: a write after them asks.
			Name: "recall", Title: "回忆", Effect: sdk.EffectRead, OnDemand: true, Untrusted: true,
			Description: "Recall remembered facts about a topic. 回忆记住的事实。",
		}, p.recall),
		sdk.AddTool(s, sdk.ToolDef{
			Name: "search", Title: "搜索记忆和知识库", Effect: sdk.EffectRead, OnDemand: true, Untrusted: true,
			Description: "Search the knowledge base and document memory. 搜索知识库和文档记忆。",
		}, p.search),
		sdk.AddTool(s, sdk.ToolDef{
			Name: "add_knowledge", Title: "添加知识", Effect: sdk.EffectWrite, OnDemand: true,
			Description: "Add or replace a knowledge base entry (a Markdown note). 添加或替换知识库条目。",
		}, p.addKnowledge),
		sdk.AddTool(s, sdk.ToolDef{
			Name: "forget", Title: "忘记", Effect: sdk.EffectWrite, OnDemand: true,
			Description: "Forget a remembered fact, given its exact text as recall shows it. 忘记一条事实。",
		}, p.forget),
		sdk.AddTool(s, sdk.ToolDef{
			Name: "correct", Title: "更正", Effect: sdk.EffectWrite, OnDemand: true,
			Description: "Replace a remembered fact (its exact text) with the corrected one. 更正一条事实。",
		}, p.correct),
	)
}

// FactID returns the document id of the fact text.
func FactID(fact string) string {
	sum := sha256.Sum256([]byte(fact))
	return "fact-" + hex.EncodeToString(sum[:8])
}

// CheckFact returns the fact as stored (on one line, trimmed) or why it
// cannot be.
func CheckFact(fact string) (string, error) {
	fact = strings.Join(strings.Fields(fact), " ")
	switch {
	case fact == "":
		return "", errors.New("the fact is empty")
	case strings.Contains(fact, strings.TrimSpace(sdk.MarkArrow)):
		return "", fmt.Errorf("a fact may not contain %q (it marks corrections); rephrase it", strings.TrimSpace(sdk.MarkArrow))
	case utf8.RuneCountInString(fact) > MaxFactRunes:
		return "", fmt.Errorf("the fact is longer than %d characters; remember one short sentence", MaxFactRunes)
	}
	return fact, nil
}

// Result is a tool's answer: JSON text for the model, and metadata for
// the host saying which facts the model was shown or changed.
type Result struct {
	value any
	meta  map[string]string
}

// Text returns the JSON the model reads.
func (r Result) Text() string {
	b, err := json.Marshal(r.value)
	if err != nil {
		return fmt.Sprintf("%q", err.Error())
	}
	return string(b)
}

// IsError reports false: failures are returned as errors.
func (r Result) IsError() bool { return false }

// ResultMetadata returns the metadata for the host.
func (r Result) ResultMetadata() map[string]string { return r.meta }

// MarshalJSON encodes the value, for hosts that encode the result
// themselves.
func (r Result) MarshalJSON() ([]byte, error) { return json.Marshal(r.value) }

func result(v any, shown []string, deleted, corrected string) Result {
	meta := map[string]string{}
	if len(shown) > 0 {
		meta[sdk.MetaMemoryShown] = strings.Join(shown, "\n")
	}
	if deleted != "" {
		meta[sdk.MetaMemoryDeleted] = deleted
	}
	if corrected != "" {
		meta[sdk.MetaMemoryCorrected] = corrected
	}
	return Result{value: v, meta: meta}
}

// contextDone returns ctx's error once the call is cancelled.
func contextDone(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}
