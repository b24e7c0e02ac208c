// Package scope says whose memory an entry is: every graph memory, doc
// memory, knowledge and text memory entry belongs to a Scope (global, the
// owner's own conversations, another person, or one chat) and to a
// writer (the plugin that wrote it; "" for the owner and Hearth itself:
// the CLI, the web UI, hand-written files). A caller sees entries through
// a View: the scopes of the conversation it acts in plus global, and
// only its own entries unless it may see every writer's (the owner, the
// agent's own recall, a plugin declaring CapabilityShared).
//
// HomeAgent's memory API names no conversation, so the scope of a call
// comes from its context: the conversation the kernel gave the call
// (With, From; and for calls that carry no context, the goroutine the
// kernel runs the plugin's handler on, and the goroutines the handler
// starts: Run, Bind). A call made outside any conversation acts in
// Global; a write made for a call that has returned is refused
// (ErrCallEnded).
package scope

import (
	"context"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// Scope names the conversations an entry belongs to.
type Scope string

// The scopes that name no single conversation.
const (
	// Global entries are visible in every conversation: hand-written
	// knowledge, what the owner adds from the CLI or the web UI, and what
	// is written outside any conversation.
	Global Scope = "global"
	// Owner entries belong to the owner's private conversations, on any
	// channel: the owner is one person wherever they write from.
	Owner Scope = "owner"
)

// CapabilityShared is the plugin capability (manifest "capabilities")
// to read every writer's entries in the scopes the plugin sees, not only
// its own. It never lets a plugin change another writer's entries.
const CapabilityShared = sdk.CapabilityMemoryShared

// User returns the scope of a person's private conversations on channel
// (a person other than the owner).
func User(channel, id string) Scope { return Scope("user:" + channel + "/" + id) }

// Chat returns the scope of one chat (a group, or a plugin's or the
// scheduler's session) on channel.
func Chat(channel, chat string) Scope { return Scope("chat:" + channel + "/" + chat) }

// Valid reports whether s is Global, Owner or made by User or Chat.
func (s Scope) Valid() bool {
	switch {
	case s == Global || s == Owner:
		return true
	case strings.HasPrefix(string(s), "user:"), strings.HasPrefix(string(s), "chat:"):
		rest := string(s[5:])
		i := strings.IndexByte(rest, '/')
		return i > 0 && i < len(rest)-1 && !strings.ContainsAny(rest, "\x00\n")
	}
	return false
}

// Conversation returns the scope of the conversation a turn runs in: a
// group chat's own; the owner's private conversations share Owner;
// another person's private conversations on a channel are theirs; any
// other session (a plugin's, the scheduler's) is its chat's. Chat ids
// that could pass for a group's or for no chat ("group:…", "-", or
// "~…") get a "~" in front, so that whoever picks a chat id (a plugin
// injecting without the right to speak in a group) never lands in a
// group's scope; an id a scope cannot hold (a newline, a NUL) is
// written "~x" and its bytes in hex, so that it never makes the scope
// invalid, which would act in Global.
func Conversation(channel, chat, userID, groupID string, owner bool) Scope {
	switch {
	case groupID != "":
		return Chat(channel, "group:"+idPart(groupID))
	case owner && userID != "" || owner && chat == "":
		return Owner
	case userID != "":
		return User(channel, idPart(userID))
	case chat == "":
		return Chat(channel, "-")
	case (chat == "-" || strings.HasPrefix(chat, "group:")) && idPart(chat) == chat:
		return Chat(channel, "~"+chat)
	}
	return Chat(channel, idPart(chat))
}

// idPart writes a user, group or chat id into a scope, one to one: as it
// is, "~" before one that starts with "~", and "~x" and hex for one
// holding a byte a scope cannot.
func idPart(id string) string {
	switch {
	case strings.ContainsAny(id, "\x00\n"):
		return "~x" + hex.EncodeToString([]byte(id))
	case strings.HasPrefix(id, "~"):
		return "~" + id
	}
	return id
}

// View is what one caller sees and where it writes.
type View struct {
	// Writer is the caller: a plugin id, or "" for the owner and Hearth.
	Writer string
	// Write is the scope new entries get.
	Write Scope
	// Read are the scopes whose entries the caller sees; Global always.
	Read []Scope
	// AllWriters lets the caller see every writer's entries in Read,
	// not only its own.
	AllWriters bool
	// AllScopes lets the caller see every scope, Read or not: the owner
	// browsing the whole memory (CLI, web UI).
	AllScopes bool
}

// Everything returns the owner's view of the whole memory, every scope
// and writer; it writes to Global.
func Everything() View {
	return View{Write: Global, Read: []Scope{Global}, AllWriters: true, AllScopes: true}
}

func (v View) reads(s Scope) bool { return v.AllScopes || slices.Contains(v.Read, s) }

// For returns the view of writer acting in the conversation conv (Global
// outside any): it writes to conv and reads conv and Global. shared is
// whether it may read every writer's entries.
func For(writer string, conv Scope, shared bool) View {
	if conv == "" || !conv.Valid() {
		conv = Global
	}
	read := []Scope{Global}
	if conv != Global {
		read = append(read, conv)
	}
	return View{Writer: writer, Write: conv, Read: read, AllWriters: shared}
}

// Sees reports whether v shows an entry writer wrote in s.
func (v View) Sees(writer string, s Scope) bool {
	return (v.AllWriters || writer == v.Writer) && v.reads(s)
}

// Owns reports whether v may change or delete an entry writer wrote in
// s: only the writer may, in a scope it sees, or the owner ("" with
// AllWriters: the CLI, the web UI).
func (v View) Owns(writer string, s Scope) bool {
	if v.Writer == "" && v.AllWriters {
		return v.reads(s)
	}
	return writer == v.Writer && v.reads(s)
}

type ctxKey struct{}

// With returns ctx carrying the conversation scope conv.
func With(ctx context.Context, conv Scope) context.Context {
	return context.WithValue(ctx, ctxKey{}, conv)
}

// From returns the conversation scope ctx carries, Global if none.
func From(ctx context.Context) Scope {
	if s, ok := ctx.Value(ctxKey{}).(Scope); ok && s.Valid() {
		return s
	}
	return Global
}
