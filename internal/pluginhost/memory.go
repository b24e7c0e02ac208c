package pluginhost

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// writes are the memory.* and knowledge.* methods that change data.
var writes = map[string]bool{
	wire.MethodMemoryCommit: true, wire.MethodMemoryMerge: true, wire.MethodMemoryPurge: true,
	wire.MethodMemoryAppendText: true, wire.MethodMemoryDocInsert: true, wire.MethodMemoryDocRemove: true,
	wire.MethodKnowledgeAdd: true,
}

// serveMemory answers memory.* (group "memory": graph, text and document
// memory) and knowledge.* (group "knowledge") with the host's services,
// each request in the plugin's own view: the plugin as the writer, in
// the conversation of the call its "callToken" names, reading every
// writer's entries only when plugin.json declares "memory.shared". A
// request without a token acts in Global. A write with a token that
// names no live call of the plugin (ended, another plugin's, made up) is
// refused (wire.CodeCallEnded); a read with one acts in Global.
func (p *Process) serveMemory(handle func(string, wire.Handler)) {
	o := p.opts
	shared := slices.Contains(p.m.Capabilities, sdk.CapabilityMemoryShared)
	type call func(v scope.View, raw json.RawMessage) (any, error)
	with := func(method string, available bool, what string, fn call) wire.Handler {
		write := writes[method]
		return func(_ context.Context, raw json.RawMessage) (any, error) {
			if !available {
				return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host has no " + what}
			}
			conv, st := p.calls.lookup(tokenOf(raw))
			if err := refusal(method, st); write && err != nil {
				return nil, err
			}
			return fn(scope.For(p.name, conv, shared), raw)
		}
	}
	decode := func(raw json.RawMessage, v any) error {
		return wire.DecodeParams(raw, v)
	}
	graph := func(m string, fn call) { handle(m, with(m, o.Memory != nil, "graph memory", fn)) }
	graph(wire.MethodMemoryRecall, func(v scope.View, raw json.RawMessage) (any, error) {
		var rp wire.RecallParams
		if err := decode(raw, &rp); err != nil {
			return nil, err
		}
		ents, rels, err := o.Memory.Recall(v, rp.Query, rp.Depth)
		return wire.RecallResult{Entities: ents, Relations: rels}, err
	})
	graph(wire.MethodMemoryCommit, func(v scope.View, raw json.RawMessage) (any, error) {
		var cp wire.CommitParams
		if err := decode(raw, &cp); err != nil {
			return nil, err
		}
		return struct{}{}, o.Memory.Commit(v, cp.Triples)
	})
	graph(wire.MethodMemoryIntrospect, func(v scope.View, _ json.RawMessage) (any, error) { return o.Memory.Introspect(v) })
	graph(wire.MethodMemoryMerge, func(v scope.View, raw json.RawMessage) (any, error) {
		var mp wire.MergeParams
		if err := decode(raw, &mp); err != nil {
			return nil, err
		}
		n, err := o.Memory.MergeEntities(v, mp.Source, mp.Target)
		return wire.CountResult{Count: n}, err
	})
	graph(wire.MethodMemoryPurge, func(v scope.View, raw json.RawMessage) (any, error) {
		var pp wire.PurgeParams
		if err := decode(raw, &pp); err != nil {
			return nil, err
		}
		n, err := o.Memory.Purge(v, pp.Criteria, pp.Mode)
		return wire.CountResult{Count: n}, err
	})
	handle(wire.MethodMemoryAppendText, with(wire.MethodMemoryAppendText, o.TextMemory != nil, "text memory", func(v scope.View, raw json.RawMessage) (any, error) {
		var e wire.AppendTextParams
		if err := decode(raw, &e); err != nil {
			return nil, err
		}
		return struct{}{}, o.TextMemory.Append(v, e.TextEvent)
	}))
	docs := func(m string, fn call) { handle(m, with(m, o.DocMemory != nil, "document memory", fn)) }
	docs(wire.MethodMemoryDocQuery, func(v scope.View, raw json.RawMessage) (any, error) {
		var sp wire.SearchParams
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		return o.DocMemory.Query(v, sp.Query, sp.TopK), nil
	})
	docs(wire.MethodMemoryDocInsert, func(v scope.View, raw json.RawMessage) (any, error) {
		var d wire.DocInsertParams
		if err := decode(raw, &d); err != nil {
			return nil, err
		}
		err := o.DocMemory.Insert(v, &d.Doc)
		return wire.DocParams{ID: d.ID}, err
	})
	docs(wire.MethodMemoryDocRemove, func(v scope.View, raw json.RawMessage) (any, error) {
		var dp wire.DocParams
		if err := decode(raw, &dp); err != nil {
			return nil, err
		}
		o.DocMemory.Remove(v, dp.ID)
		return struct{}{}, nil
	})
	docs(wire.MethodMemoryDocStats, func(v scope.View, _ json.RawMessage) (any, error) { return o.DocMemory.Stats(v), nil })
	kb := func(m string, fn call) { handle(m, with(m, o.Knowledge != nil, "knowledge base", fn)) }
	kb(wire.MethodKnowledgeSearch, func(v scope.View, raw json.RawMessage) (any, error) {
		var sp wire.SearchParams
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		return o.Knowledge.Search(v, sp.Query, sp.TopK)
	})
	kb(wire.MethodKnowledgeAdd, func(v scope.View, raw json.RawMessage) (any, error) {
		var kp wire.KnowledgeParams
		if err := decode(raw, &kp); err != nil {
			return nil, err
		}
		return struct{}{}, o.Knowledge.Add(v, kp.Name, kp.Content)
	})
	kb(wire.MethodKnowledgeList, func(v scope.View, _ json.RawMessage) (any, error) { return o.Knowledge.List(v) })
}
