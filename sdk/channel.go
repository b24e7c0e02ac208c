package sdk

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Output capability flags, HomeAgent's: what an output channel can deliver.
// RegisterOutputChannel takes their sum; the host refuses an
// output_send__<name> call whose type the channel did not declare.
const (
	CapText       = 1  // plain text ("text")
	CapFile       = 2  // a file ("file")
	CapImage      = 4  // an image ("image")
	CapAudio      = 8  // audio ("audio")
	CapStructured = 16 // structured data, JSON ("structured")
)

// The message types of an output channel, one per capability flag: the
// "type" argument of output_send__<name> and ChannelMessage.Type.
const (
	ChannelTypeText       = "text"
	ChannelTypeFile       = "file"
	ChannelTypeImage      = "image"
	ChannelTypeAudio      = "audio"
	ChannelTypeStructured = "structured"
)

var channelTypes = [...]struct {
	name string
	cap  int
}{
	{ChannelTypeText, CapText}, {ChannelTypeFile, CapFile}, {ChannelTypeImage, CapImage},
	{ChannelTypeAudio, CapAudio}, {ChannelTypeStructured, CapStructured},
}

// CapForType returns the capability flag of an output message type ("" is
// text), or 0 for a type HomeAgent does not define.
func CapForType(typ string) int {
	if typ == "" {
		return CapText
	}
	for _, t := range channelTypes {
		if t.name == typ {
			return t.cap
		}
	}
	return 0
}

// CapNames returns the message types caps declares, in flag order.
func CapNames(caps int) []string {
	var out []string
	for _, t := range channelTypes {
		if caps&t.cap != 0 {
			out = append(out, t.name)
		}
	}
	return out
}

// Context policies, HomeAgent's: whether an input (of a channel, a tool or
// one injection) prunes the conversation's context by relevance. The empty
// string means ContextPolicyNone. Hearth never prunes by relevance (it
// leaves the oldest history out of a request that would not fit); it
// accepts and checks the value.
const (
	ContextPolicyNone  = "none"
	ContextPolicyPrune = "prune"
)

// ValidContextPolicy reports whether policy is "", ContextPolicyNone or
// ContextPolicyPrune.
func ValidContextPolicy(policy string) bool {
	switch policy {
	case "", ContextPolicyNone, ContextPolicyPrune:
		return true
	}
	return false
}

// Recall policies, HomeAgent's: whether an input recalls related memory
// into the turn. The empty string means RecallPolicyAuto for inputs and
// injections, RecallPolicyNone for tools.
const (
	RecallPolicyNone = "none"
	RecallPolicyAuto = "auto"
)

// ValidRecallPolicy reports whether policy is "", RecallPolicyNone or
// RecallPolicyAuto.
func ValidRecallPolicy(policy string) bool {
	switch policy {
	case "", RecallPolicyNone, RecallPolicyAuto:
		return true
	}
	return false
}

// ChannelDef is how a channel's messages count for memory, HomeAgent's
// (with its JSON names, as it travels to the host):
//
//   - NoMemory: the channel's input is answered and kept in the
//     conversation, but not written to memory (an injection into the
//     channel gets Injection.NoMemory).
//   - Cleaner: a filter for the memory computations that leaves the text
//     itself unchanged. It stays in the plugin (a function does not
//     cross a process boundary); Hearth's memory does not call it yet.
//   - ContextPolicy, RecallPolicy: see the ContextPolicy* and
//     RecallPolicy* constants; checked and recorded.
type ChannelDef struct {
	NoMemory      bool                `json:"no_memory,omitempty"`
	Cleaner       func(string) string `json:"-"`
	ContextPolicy string              `json:"context_policy,omitempty"`
	RecallPolicy  string              `json:"recall_policy,omitempty"`
}

// Validate reports a ContextPolicy or RecallPolicy HomeAgent does not
// define.
func (d ChannelDef) Validate() error {
	if !ValidContextPolicy(d.ContextPolicy) {
		return fmt.Errorf("unknown context policy %q (want %q or %q)", d.ContextPolicy, ContextPolicyNone, ContextPolicyPrune)
	}
	if !ValidRecallPolicy(d.RecallPolicy) {
		return fmt.Errorf("unknown recall policy %q (want %q or %q)", d.RecallPolicy, RecallPolicyNone, RecallPolicyAuto)
	}
	return nil
}

// OutputSendPrefix starts the name of the tool the model sends through an
// output channel with: output_send__qq for the channel qq.
const OutputSendPrefix = "output_send__"

// MaxChannelName is the longest channel name: OutputSendPrefix and the
// name make a tool name of at most 64 characters, the providers' limit.
const MaxChannelName = 64 - len(OutputSendPrefix)

// ErrChannelName is returned (wrapped) for a channel name that is not 1 to
// MaxChannelName letters, digits, '_' and '-'.
var ErrChannelName = errors.New("invalid channel name")

var channelNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckChannelName returns an error wrapping ErrChannelName unless name can
// be a channel's.
func CheckChannelName(name string) error {
	if len(name) > MaxChannelName || !channelNameRE.MatchString(name) {
		return fmt.Errorf("%w %q: use 1 to %d of A-Z a-z 0-9 _ -", ErrChannelName, name, MaxChannelName)
	}
	return nil
}

// ChannelRegistration is one channel declaration as a host receives it:
// RegisterInputChannel sends one with Input, RegisterOutputChannel one
// with Output, Caps, Description and Handler. Hosts merge the two halves
// of a name.
type ChannelRegistration struct {
	Name        string     `json:"name"`
	Input       bool       `json:"input,omitzero"`
	Output      bool       `json:"output,omitzero"`
	Caps        int        `json:"caps,omitzero"`
	Description string     `json:"description,omitempty"`
	Def         ChannelDef `json:"def"`
	// Handler delivers one outbound message; it receives HomeAgent's
	// arguments: payload (string), type (string), meta (string, may be
	// absent), and Hearth's chat_id, user_id, group_id (where the turn's
	// input came from, when known) and final (true for a turn's answer,
	// absent for the model's output_send__<name> call). Its value is the
	// tool result the model sees.
	Handler ToolHandler `json:"-"`
	// Send, when set, is used instead of Handler: a context-aware
	// delivery, for bridges that forward the message (a child process's
	// host side).
	Send func(ctx context.Context, msg OutputMessage) (any, error) `json:"-"`
}

// RegisterInputChannel declares the input channel name, into which the
// plugin injects (InjectText and the rest with channel name, or
// InjectInput with Channel name, ChatID, UserID, GroupID): a Hearth
// channel of its own, whose sessions are keyed by chat. The name must
// pass CheckChannelName, must not be one of Hearth's channels (terminal,
// web, ask, mcp, ...) nor another plugin's. Speaking as a user or group
// still needs CapabilityInjectUser.
func (s *PluginSDK) RegisterInputChannel(name string, def ChannelDef) error {
	return s.registerChannel(ChannelRegistration{Name: name, Input: true, Def: def})
}

// RegisterOutputChannel declares the output channel name: the answer of a
// turn on the channel that the plugin did not wait for (InjectText,
// InjectInterruptText; InjectInputSync returns it instead) goes to
// handler, and the model gets the tool output_send__<name> (arguments
// payload, type, meta) to send through it, limited to the types caps
// declares (CapText and the rest; 0 means CapText). desc tells the model
// what the channel is and what meta it expects.
func (s *PluginSDK) RegisterOutputChannel(name string, caps int, desc string, def ChannelDef, handler ToolHandler) error {
	if handler == nil {
		return fmt.Errorf("sdk: RegisterOutputChannel %q with a nil handler", name)
	}
	return s.registerChannel(ChannelRegistration{Name: name, Output: true, Caps: caps, Description: desc, Def: def, Handler: handler})
}

// UnregisterOutputChannel removes the output channel name (and its
// output_send__<name> tool), for channels that come and go with outside
// resources. Its input half stays.
func (s *PluginSDK) UnregisterOutputChannel(name string) error {
	return s.b.UnregisterChannel(s.name, name)
}

func (s *PluginSDK) registerChannel(reg ChannelRegistration) error {
	reg.Name = strings.TrimSpace(reg.Name)
	if err := CheckChannelName(reg.Name); err != nil {
		return err
	}
	if err := reg.Def.Validate(); err != nil {
		return fmt.Errorf("channel %q: %w", reg.Name, err)
	}
	if reg.Output && reg.Caps&^(CapText|CapFile|CapImage|CapAudio|CapStructured) != 0 {
		return fmt.Errorf("channel %q: unknown capability bits %#x", reg.Name, reg.Caps)
	}
	return s.b.RegisterChannel(s.name, reg)
}

// OutputMessage is one message for an output channel's handler: a turn's
// answer (Final) or the model's output_send__<name> call.
type OutputMessage struct {
	Channel string `json:"channel"`
	// ChatID, UserID and GroupID say where the turn's input came from;
	// empty for an output_send__<name> call made in another channel's
	// turn.
	ChatID  string `json:"chatId,omitempty"`
	UserID  string `json:"userId,omitempty"`
	GroupID string `json:"groupId,omitempty"`
	Type    string `json:"type"` // ChannelTypeText and the rest
	Payload string `json:"payload"`
	Meta    string `json:"meta,omitempty"` // free-form, as the channel's description says
	// Final is true for a turn's answer routed to the channel, false for
	// the model's output_send__<name> call.
	Final bool `json:"final,omitzero"`
}

// Args returns m as an output handler's arguments: payload, type and meta
// (HomeAgent's; meta only when set), and chat_id, user_id, group_id and
// final when set (Hearth's).
func (m OutputMessage) Args() map[string]any {
	args := map[string]any{"payload": m.Payload, "type": m.Type}
	set := func(k, v string) {
		if v != "" {
			args[k] = v
		}
	}
	set("meta", m.Meta)
	set("chat_id", m.ChatID)
	set("user_id", m.UserID)
	set("group_id", m.GroupID)
	if m.Final {
		args["final"] = true
	}
	return args
}
