package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// serveSettings answers settings.* and kv.* for the plugin: its own
// settings (group "settings"), Hearth's (group "settings.core"), other
// plugins' with their secrets masked (group "settings.plugins"; writing
// them is group "settings.plugins.write", never a secret, and audited),
// and its private key-value storage (group "kv").
func (p *Process) serveSettings(handle func(string, wire.Handler)) {
	svc := p.opts.Settings
	params := func(raw json.RawMessage, v any) error {
		return wire.DecodeParams(raw, v)
	}
	setting := func(fn func(sp wire.SettingParams) (any, error)) wire.Handler {
		return func(_ context.Context, raw json.RawMessage) (any, error) {
			if svc == nil {
				return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host keeps no settings"}
			}
			var sp wire.SettingParams
			if err := params(raw, &sp); err != nil {
				return nil, err
			}
			v, err := fn(sp)
			switch {
			case errors.Is(err, settings.ErrInvalid):
				return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
			case errors.Is(err, settings.ErrForbidden):
				return nil, &wire.Error{Code: wire.CodeCapability, Message: err.Error()}
			}
			return v, err
		}
	}
	value := func(ns, key string, masked bool) (any, error) {
		raw, ok, err := svc.Value(ns, key)
		if err != nil || !ok {
			return wire.ValueResult{}, err
		}
		if masked && svc.Secret(ns, key) {
			raw, _ = json.Marshal(settings.Mask)
		}
		return wire.ValueResult{Value: raw, Found: true}, nil
	}
	ok := func(err error) (any, error) { return struct{}{}, err }
	keys := func(list []string, err error) (any, error) { return list, err }
	own := p.name

	handle(wire.MethodSettingsGet, setting(func(sp wire.SettingParams) (any, error) { return value(own, sp.Key, false) }))
	handle(wire.MethodSettingsSet, setting(func(sp wire.SettingParams) (any, error) { return ok(svc.SetJSON(own, sp.Key, sp.Value)) }))
	handle(wire.MethodSettingsList, setting(func(sp wire.SettingParams) (any, error) { return keys(svc.Keys(own, sp.Prefix)) }))
	handle(wire.MethodSettingsDefs, setting(func(sp wire.SettingParams) (any, error) { return svc.Defs(own, sp.Prefix), nil }))
	handle(wire.MethodSettingsRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		if svc == nil {
			return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host keeps no settings"}
		}
		var d sdk.ConfigDef
		if err := params(raw, &d); err != nil {
			return nil, err
		}
		if err := svc.Register(own, d); err != nil {
			return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
		}
		return struct{}{}, nil
	})
	handle(wire.MethodSettingsGetCore, setting(func(sp wire.SettingParams) (any, error) { return value(settings.Core, sp.Key, false) }))
	handle(wire.MethodSettingsSetCore, setting(func(sp wire.SettingParams) (any, error) {
		return ok(svc.SetJSON(settings.Core, sp.Key, sp.Value))
	}))
	handle(wire.MethodSettingsListCore, setting(func(sp wire.SettingParams) (any, error) { return keys(svc.Keys(settings.Core, sp.Prefix)) }))
	handle(wire.MethodSettingsGetOther, setting(func(sp wire.SettingParams) (any, error) {
		if err := settings.CheckPlugin(sp.Plugin); err != nil {
			return nil, err
		}
		return value(sp.Plugin, sp.Key, sp.Plugin != own)
	}))
	handle(wire.MethodSettingsSetOther, setting(func(sp wire.SettingParams) (any, error) {
		return ok(svc.SetForPlugin(own, sp.Plugin, sp.Key, sp.Value))
	}))
	handle(wire.MethodSettingsListOther, setting(func(sp wire.SettingParams) (any, error) {
		if err := settings.CheckPlugin(sp.Plugin); err != nil {
			return nil, err
		}
		return keys(svc.Keys(sp.Plugin, sp.Prefix))
	}))
	handle(wire.MethodSettingsDump, setting(func(wire.SettingParams) (any, error) {
		d, err := svc.Dump()
		if err == nil && !slices.Contains(p.m.Capabilities, "settings.core") {
			delete(d, settings.Core) // Hearth's settings are group settings.core
		}
		return d, err
	}))
	handle(wire.MethodSettingsPlugins, setting(func(wire.SettingParams) (any, error) { return keys(svc.Namespaces()) }))

	kv := func(fn func(ctx context.Context, kp wire.KVParams) (any, error)) wire.Handler {
		return func(ctx context.Context, raw json.RawMessage) (any, error) {
			if svc == nil {
				return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "this host has no storage"}
			}
			var kp wire.KVParams
			if err := params(raw, &kp); err != nil {
				return nil, err
			}
			return fn(ctx, kp)
		}
	}
	handle(wire.MethodKVGet, kv(func(ctx context.Context, kp wire.KVParams) (any, error) {
		var v json.RawMessage
		found, err := svc.KV(own).Get(ctx, kp.Key, &v)
		return wire.ValueResult{Value: v, Found: found}, err
	}))
	handle(wire.MethodKVSet, kv(func(ctx context.Context, kp wire.KVParams) (any, error) {
		if len(kp.Value) == 0 {
			return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: "kv.set without a value"}
		}
		return ok(svc.KV(own).Set(ctx, kp.Key, kp.Value))
	}))
	handle(wire.MethodKVDelete, kv(func(ctx context.Context, kp wire.KVParams) (any, error) {
		return ok(svc.KV(own).Delete(ctx, kp.Key))
	}))
}
