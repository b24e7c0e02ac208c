package pluginhost

import (
	"context"
	"encoding/json"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// serveMemory answers memory.* (group "memory": graph, text and document
// memory) and knowledge.* (group "knowledge") with the host's services.
func (p *Process) serveMemory(handle func(string, wire.Handler)) {
	o := p.opts
	with := func(available bool, what string, fn func(raw json.RawMessage) (any, error)) wire.Handler {
		return func(_ context.Context, raw json.RawMessage) (any, error) {
			if !available {
				return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host has no " + what}
			}
			return fn(raw)
		}
	}
	decode := func(raw json.RawMessage, v any) error {
		return wire.DecodeParams(raw, v)
	}
	graph := func(m string, fn func(raw json.RawMessage) (any, error)) {
		handle(m, with(o.Memory != nil, "graph memory", fn))
	}
	graph(wire.MethodMemoryRecall, func(raw json.RawMessage) (any, error) {
		var rp wire.RecallParams
		if err := decode(raw, &rp); err != nil {
			return nil, err
		}
		ents, rels, err := o.Memory.Recall(rp.Query, rp.Depth)
		return wire.RecallResult{Entities: ents, Relations: rels}, err
	})
	graph(wire.MethodMemoryCommit, func(raw json.RawMessage) (any, error) {
		var cp wire.CommitParams
		if err := decode(raw, &cp); err != nil {
			return nil, err
		}
		return struct{}{}, o.Memory.Commit(cp.Triples)
	})
	graph(wire.MethodMemoryIntrospect, func(json.RawMessage) (any, error) { return o.Memory.Introspect() })
	graph(wire.MethodMemoryMerge, func(raw json.RawMessage) (any, error) {
		var mp wire.MergeParams
		if err := decode(raw, &mp); err != nil {
			return nil, err
		}
		n, err := o.Memory.MergeEntities(mp.Source, mp.Target)
		return wire.CountResult{Count: n}, err
	})
	graph(wire.MethodMemoryPurge, func(raw json.RawMessage) (any, error) {
		var pp wire.PurgeParams
		if err := decode(raw, &pp); err != nil {
			return nil, err
		}
		n, err := o.Memory.Purge(pp.Criteria, pp.Mode)
		return wire.CountResult{Count: n}, err
	})
	handle(wire.MethodMemoryAppendText, with(o.TextMemory != nil, "text memory", func(raw json.RawMessage) (any, error) {
		var e sdk.TextEvent
		if err := decode(raw, &e); err != nil {
			return nil, err
		}
		return struct{}{}, o.TextMemory.Append(e)
	}))
	docs := func(m string, fn func(raw json.RawMessage) (any, error)) {
		handle(m, with(o.DocMemory != nil, "document memory", fn))
	}
	docs(wire.MethodMemoryDocQuery, func(raw json.RawMessage) (any, error) {
		var sp wire.SearchParams
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		return o.DocMemory.Query(sp.Query, sp.TopK), nil
	})
	docs(wire.MethodMemoryDocInsert, func(raw json.RawMessage) (any, error) {
		var d sdk.Doc
		if err := decode(raw, &d); err != nil {
			return nil, err
		}
		err := o.DocMemory.Insert(&d)
		return wire.DocParams{ID: d.ID}, err
	})
	docs(wire.MethodMemoryDocRemove, func(raw json.RawMessage) (any, error) {
		var dp wire.DocParams
		if err := decode(raw, &dp); err != nil {
			return nil, err
		}
		o.DocMemory.Remove(dp.ID)
		return struct{}{}, nil
	})
	docs(wire.MethodMemoryDocStats, func(json.RawMessage) (any, error) { return o.DocMemory.Stats(), nil })
	kb := func(m string, fn func(raw json.RawMessage) (any, error)) {
		handle(m, with(o.Knowledge != nil, "knowledge base", fn))
	}
	kb(wire.MethodKnowledgeSearch, func(raw json.RawMessage) (any, error) {
		var sp wire.SearchParams
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		return o.Knowledge.Search(sp.Query, sp.TopK)
	})
	kb(wire.MethodKnowledgeAdd, func(raw json.RawMessage) (any, error) {
		var kp wire.KnowledgeParams
		if err := decode(raw, &kp); err != nil {
			return nil, err
		}
		return struct{}{}, o.Knowledge.Add(kp.Name, kp.Content)
	})
	kb(wire.MethodKnowledgeList, func(json.RawMessage) (any, error) { return o.Knowledge.List() })
}
