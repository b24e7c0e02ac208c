package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hearth-agent/hearth/sdk/internal/codec"
)

// AddTool registers a typed tool. When def.Parameters is nil the input
// schema is inferred from In: exported fields by their json names, fields
// without omitempty required, the `jsonschema:"..."` tag as the field's
// description. The handler receives the validated arguments decoded into
// In, strictly: member names match the json tags exactly (case included),
// and a name given twice or a string that is not UTF-8 fails the call.
// Its Out is JSON-encoded for the model.
//
//	type NowIn struct {
//		Zone string `json:"zone,omitempty" jsonschema:"IANA time zone, e.g. Asia/Shanghai"`
//	}
//	sdk.AddTool(s, sdk.ToolDef{Name: "now", Description: "Current time"},
//		func(ctx context.Context, tc *sdk.ToolContext, in NowIn) (string, error) { ... })
func AddTool[In, Out any](s *PluginSDK, def ToolDef, fn ToolFunc[In, Out]) error {
	if fn == nil {
		return errors.New("sdk: AddTool with a nil handler")
	}
	if def.Parameters == nil {
		schema, err := SchemaFor[In]()
		if err != nil {
			return fmt.Errorf("sdk: inferring the input schema of tool %q: %w", def.Name, err)
		}
		def.Parameters = schema
	}
	return s.RegisterRawTool(def.Name, def, func(ctx context.Context, tc *ToolContext, _ map[string]any, raw json.RawMessage) (any, error) {
		var in In
		if len(raw) > 0 {
			if err := codec.Unmarshal(raw, &in); err != nil {
				return nil, fmt.Errorf("decoding arguments: %w", err)
			}
		}
		return fn(ctx, tc, in)
	})
}

// SchemaFor returns the JSON Schema inferred for T, as AddTool uses it.
func SchemaFor[T any]() (map[string]any, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
