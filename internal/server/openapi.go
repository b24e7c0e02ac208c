package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// The OpenAPI description (docs/openapi.json) is generated from the route
// table: each /v1 route's method, path, summary, the schemas of its in and
// out types (made by jsonschema-go from the Go types), and text/event-stream
// for stream routes. TestOpenAPIInSync keeps the file equal to it.

// openAPIDoc is an OpenAPI 3.1 document, the parts Hearth uses, in the
// order they are written.
type openAPIDoc struct {
	OpenAPI    string                           `json:"openapi"`
	Info       openAPIInfo                      `json:"info"`
	Security   []map[string][]string            `json:"security"`
	Paths      map[string]map[string]*operation `json:"paths"`
	Components openAPIComponents                `json:"components"`
}

type openAPIInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

type openAPIComponents struct {
	Schemas         map[string]*jsonschema.Schema `json:"schemas"`
	SecuritySchemes map[string]securityScheme     `json:"securitySchemes"`
}

type securityScheme struct {
	Type   string `json:"type"`
	Scheme string `json:"scheme"`
}

type operation struct {
	OperationID string                 `json:"operationId"`
	Summary     string                 `json:"summary"`
	Security    any                    `json:"security,omitempty"` // an empty list for public routes
	Parameters  []parameter            `json:"parameters,omitempty"`
	RequestBody *requestBody           `json:"requestBody,omitempty"`
	Responses   map[string]apiResponse `json:"responses"`
}

type parameter struct {
	Name     string             `json:"name"`
	In       string             `json:"in"`
	Required bool               `json:"required"`
	Schema   *jsonschema.Schema `json:"schema"`
}

type requestBody struct {
	Required bool                 `json:"required"`
	Content  map[string]mediaType `json:"content"`
}

type apiResponse struct {
	Description string               `json:"description"`
	Content     map[string]mediaType `json:"content,omitempty"`
}

type mediaType struct {
	Schema *jsonschema.Schema `json:"schema"`
}

var pathParam = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)(\.\.\.)?\}`)

// openAPI returns the OpenAPI document of routes as indented JSON. The
// output depends only on the routes: schemas are named by their Go type
// and maps are written in key order.
func openAPI(routes []route) ([]byte, error) {
	doc := openAPIDoc{
		OpenAPI: "3.1.0",
		Info: openAPIInfo{Title: "Hearth", Version: "1",
			Description: "The HTTP API of `hearth serve`; see docs/http-api.md. Generated from internal/server's route table."},
		Security: []map[string][]string{{"bearer": {}}},
		Paths:    map[string]map[string]*operation{},
		Components: openAPIComponents{Schemas: map[string]*jsonschema.Schema{},
			SecuritySchemes: map[string]securityScheme{
				"bearer": {Type: "http", Scheme: "bearer"},
				// hearth token --openai: only the OpenAI-compatible routes take it
				"openaiClientToken": {Type: "http", Scheme: "bearer"},
			}},
	}
	errRef, err := doc.schemaRef(apiError{})
	if err != nil {
		return nil, err
	}
	for _, rt := range routes {
		if rt.method == "" || !strings.HasPrefix(rt.path, "/v1") {
			continue // the web UI's files
		}
		path := pathParam.ReplaceAllString(rt.path, "{$1}")
		op := &operation{
			OperationID: operationID(rt.method, rt.path),
			Summary:     rt.summary,
			Responses:   map[string]apiResponse{"default": {Description: "An error.", Content: jsonContent(errRef)}},
		}
		switch {
		case rt.public:
			op.Security = []map[string][]string{}
		case rt.client:
			op.Security = []map[string][]string{{"bearer": {}}, {"openaiClientToken": {}}}
		}
		for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
			op.Parameters = append(op.Parameters, parameter{Name: m[1], In: "path", Required: true, Schema: &jsonschema.Schema{Type: "string"}})
		}
		if rt.in != nil {
			ref, err := doc.schemaRef(rt.in)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", rt.method, rt.path, err)
			}
			op.RequestBody = &requestBody{Required: true, Content: jsonContent(ref)}
		}
		switch {
		case rt.stream:
			ok := apiResponse{Description: "A stream of server-sent events."}
			if rt.out != nil {
				ref, err := doc.schemaRef(rt.out)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", rt.method, rt.path, err)
				}
				ok.Content = map[string]mediaType{"text/event-stream": {Schema: ref}}
			}
			op.Responses["200"] = ok
		case rt.out != nil:
			ref, err := doc.schemaRef(rt.out)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", rt.method, rt.path, err)
			}
			op.Responses["200"] = apiResponse{Description: "OK.", Content: jsonContent(ref)}
		default:
			op.Responses["204"] = apiResponse{Description: "Done; no content."}
		}
		if doc.Paths[path] == nil {
			doc.Paths[path] = map[string]*operation{}
		}
		method := strings.ToLower(rt.method)
		if doc.Paths[path][method] != nil {
			return nil, fmt.Errorf("route %s %s is in the table twice", rt.method, rt.path)
		}
		doc.Paths[path][method] = op
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func jsonContent(s *jsonschema.Schema) map[string]mediaType {
	return map[string]mediaType{"application/json": {Schema: s}}
}

// operationID names an operation: get_v1_sessions_id.
func operationID(method, path string) string {
	id := strings.ToLower(method) + "_" + strings.Trim(path, "/")
	return strings.NewReplacer("/", "_", "{", "", "}", "", ".", "", "-", "_").Replace(id)
}

// schemaOptions map types jsonschema-go does not describe as JSON does.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
	reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
	reflect.TypeFor[time.Duration]():   {Type: "integer", Description: "nanoseconds"},
}}

// schemaRef adds v's type to the components and returns a reference to
// it. A type that is not a named struct is described in place.
func (doc *openAPIDoc) schemaRef(v any) (*jsonschema.Schema, error) {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := jsonschema.ForType(t, schemaOptions)
	if err != nil {
		return nil, err
	}
	name := t.Name()
	if name == "" || t.Kind() != reflect.Struct {
		return s, nil
	}
	if name == "apiError" {
		name = "Error"
	}
	if old, ok := doc.Components.Schemas[name]; ok {
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(s)
		if !bytes.Equal(a, b) {
			return nil, fmt.Errorf("two types are named %s in the route table (%s); rename one", name, t)
		}
	}
	doc.Components.Schemas[name] = s
	return &jsonschema.Schema{Ref: "#/components/schemas/" + name}, nil
}
