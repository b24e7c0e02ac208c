package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
)

// update rewrites golden files (docs/openapi.json) instead of comparing.
var update = flag.Bool("update", false, "rewrite golden files such as docs/openapi.json")

const openAPIFile = "../../docs/openapi.json"

// TestOpenAPIInSync fails when docs/openapi.json is not what the route
// table generates; go test ./internal/server -run OpenAPI -update rewrites it.
func TestOpenAPIInSync(t *testing.T) {
	s := New(newTestApp(t), &Options{Token: testToken})
	defer s.Close()
	got, err := openAPI(s.routes())
	if err != nil {
		t.Fatal(err)
	}
	again, err := openAPI(s.routes())
	if err != nil || !bytes.Equal(got, again) {
		t.Fatalf("the OpenAPI output is not deterministic (%v)", err)
	}
	if *update {
		if err := os.WriteFile(openAPIFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/openapi.json is out of date with the route table: run\n\tgo test ./internal/server -run TestOpenAPIInSync -update\n%s",
			firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(int64(i+1)) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}

// The generator describes any table: path parameters, bodies, streams,
// public routes, routes without answers; it refuses a route twice.
func TestOpenAPIOfATable(t *testing.T) {
	type Thing struct {
		Name string `json:"name"`
	}
	routes := []route{
		{method: "GET", path: "/", public: true},
		{method: "GET", path: "/v1/things/{id}/parts/{part...}", summary: "a part", out: Thing{}},
		{method: "PUT", path: "/v1/things/{id}", in: Thing{}},
		{method: "GET", path: "/v1/things/events", out: Event{}, stream: true},
		{method: "GET", path: "/v1/open", public: true, out: map[string]int{}},
	}
	data, err := openAPI(routes)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Security   []any `json:"security"`
			Parameters []struct {
				Name string `json:"name"`
			} `json:"parameters"`
			RequestBody *struct {
				Content map[string]any `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths["/"]; ok {
		t.Error("the UI's route is described")
	}
	part := doc.Paths["/v1/things/{id}/parts/{part}"]["get"]
	if len(part.Parameters) != 2 || part.Parameters[1].Name != "part" || part.Responses["200"].Content["application/json"] == nil {
		t.Errorf("path parameters: %+v", part)
	}
	if put := doc.Paths["/v1/things/{id}"]["put"]; put.RequestBody == nil || put.Responses["204"].Content != nil {
		t.Errorf("put: %+v", put)
	}
	if ev := doc.Paths["/v1/things/events"]["get"]; ev.Responses["200"].Content["text/event-stream"] == nil {
		t.Errorf("stream: %+v", ev)
	}
	if open := doc.Paths["/v1/open"]["get"]; open.Security == nil || len(open.Security) != 0 {
		t.Errorf("public route security %v", open.Security)
	}
	for _, name := range []string{"Thing", "Event", "Error"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("no schema %s", name)
		}
	}
	if _, err := openAPI(append(routes, routes[1])); err == nil {
		t.Error("a route twice was accepted")
	}
}
