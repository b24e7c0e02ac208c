package pluginhost

import (
	"context"
	"encoding/json"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

// serveMemory answers memory.* (group "memory": graph, text and document
// memory) and knowledge.* (group "knowledge") with the host's services.
func (p *Process) serveMemory(handle func(string, pluginrpc.Handler)) {
	o := p.opts
	with := func(available bool, what string, fn func(raw json.RawMessage) (any, error)) pluginrpc.Handler {
		return func(_ context.Context, raw json.RawMessage) (any, error) {
			if !available {
				return nil, &pluginrpc.Error{Code: pluginrpc.CodeUnavailable, Message: "this host has no " + what}
			}
			return fn(raw)
		}
	}
	decode := func(raw json.RawMessage, v any) error {
		if err := json.Unmarshal(raw, v); err != nil {
			return &pluginrpc.Error{Code: pluginrpc.CodeInvalidParams, Message: err.Error()}
		}
		return nil
	}
	graph := func(m string, fn func(raw json.RawMessage) (any, error)) {
		handle(m, with(o.Memory != nil, "graph memory", fn))
	}
	graph(pluginrpc.MethodMemoryRecall, func(raw json.RawMessage) (any, error) {
		var rp pluginrpc.RecallParams
		if err := decode(raw, &rp); err != nil {
			return nil, err
		}
		ents, rels, err := o.Memory.Recall(rp.Query, rp.Depth)
		return pluginrpc.RecallResult{Entities: ents, Relations: rels}, err
	})
	graph(pluginrpc.MethodMemoryCommit, func(raw json.RawMessage) (any, error) {
		var cp pluginrpc.CommitParams
		if err := decode(raw, &cp); err != nil {
			return nil, err
		}
		return struct{}{}, o.Memory.Commit(cp.Triples)
	})
	graph(pluginrpc.MethodMemoryIntrospect, func(json.RawMessage) (any, error) { return o.Memory.Introspect() })
	graph(pluginrpc.MethodMemoryMerge, func(raw json.RawMessage) (any, error) {
		var mp pluginrpc.MergeParams
		if err := decode(raw, &mp); err != nil {
			return nil, err
		}
		n, err := o.Memory.MergeEntities(mp.Source, mp.Target)
		return pluginrpc.CountResult{Count: n}, err
	})
	graph(pluginrpc.MethodMemoryPurge, func(raw json.RawMessage) (any, error) {
		var pp pluginrpc.PurgeParams
		if err := decode(raw, &pp); err != nil {
			return nil, err
		}
		n, err := o.Memory.Purge(pp.Criteria, pp.Mode)
		return pluginrpc.CountResult{Count: n}, err
	})
	handle(pluginrpc.MethodMemoryAppendText, with(o.TextMemory != nil, "text memory", func(raw json.RawMessage) (any, error) {
		var e sdk.TextEvent
		if err := decode(raw, &e); err != nil {
			return nil, err
		}
		return struct{}{}, o.TextMemory.Append(e)
	}))
	docs := func(m string, fn func(raw json.RawMessage) (any, error)) {
		handle(m, with(o.DocMemory != nil, "document memory", fn))
	}
	docs(pluginrpc.MethodMemoryDocQuery, func(raw json.RawMessage) (any, error) {
		var sp pluginrpc.SearchParams
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		return o.DocMemory.Query(sp.Query, sp.TopK), nil
	})
	docs(pluginrpc.MethodMemoryDocInsert, func(raw json.RawMessage) (any, error) {
		var d sdk.Doc
		if err := decode(raw, &d); err != nil {
			return nil, err
		}
		err := o.DocMemory.Insert(&d)
		return pluginrpc.DocParams{ID: d.ID}, err
	})
	docs(pluginrpc.MethodMemoryDocRemove, func(raw json.RawMessage) (any, error) {
		var dp pluginrpc.DocParams
		if err := decode(raw, &dp); err != nil {
			return nil, err
		}
		o.DocMemory.Remove(dp.ID)
		return struct{}{}, nil
	})
	docs(pluginrpc.MethodMemoryDocStats, func(json.RawMessage) (any, error) { return o.DocMemory.Stats(), nil })
	kb := func(m string, fn func(raw json.RawMessage) (any, error)) {
		handle(m, with(o.Knowledge != nil, "knowledge base", fn))
	}
	kb(pluginrpc.MethodKnowledgeSearch, func(raw json.RawMessage) (any, error) {
		var sp pluginrpc.SearchParams
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		return o.Knowledge.Search(sp.Query, sp.TopK)
	})
	kb(pluginrpc.MethodKnowledgeAdd, func(raw json.RawMessage) (any, error) {
		var kp pluginrpc.KnowledgeParams
		if err := decode(raw, &kp); err != nil {
			return nil, err
		}
		return struct{}{}, o.Knowledge.Add(kp.Name, kp.Content)
	})
	kb(pluginrpc.MethodKnowledgeList, func(json.RawMessage) (any, error) { return o.Knowledge.List() })
}
