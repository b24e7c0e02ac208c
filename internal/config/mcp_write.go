package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Writing config.json's "mcpServers", for `hearth mcp add` and `hearth mcp
// remove`: as for the sources (see write.go), only the entry changed is
// touched, and the file is replaced at once.

// Errors the MCP server writers return, for callers to branch on.
var (
	// ErrMCPExists means config.json has an MCP server by the name (in
	// any case) already; PutMCPServer replaces it only when forced.
	ErrMCPExists = errors.New("an MCP server by this name is configured already")
	// ErrNoMCPServer means config.json has no MCP server by the name.
	ErrNoMCPServer = errors.New("no MCP server by this name is configured")
)

// PutMCPServer adds the MCP server name to dir's config.json. When one by
// the same name (compared without regard to case) is there, it returns an
// error wrapping ErrMCPExists, unless force, in which case it is replaced.
// s is checked as Parse checks it.
func PutMCPServer(dir, name string, s MCPServer, force bool) error {
	if err := CheckMCPName(name); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("MCP server %q: %w", name, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encoding MCP server %q: %w", name, err)
	}
	return editSection(dir, "mcpServers", func(_, servers map[string]json.RawMessage) error {
		for have := range servers {
			if strings.EqualFold(have, name) {
				if !force {
					return fmt.Errorf("%w: %q", ErrMCPExists, have)
				}
				delete(servers, have)
			}
		}
		servers[name] = b
		return nil
	})
}

// DeleteMCPServer removes the MCP server name (compared without regard to
// case) from dir's config.json, and returns the name as the file spelt
// it; an error wrapping ErrNoMCPServer when there is none.
func DeleteMCPServer(dir, name string) (string, error) {
	var removed string
	err := editSection(dir, "mcpServers", func(_, servers map[string]json.RawMessage) error {
		for have := range servers {
			if strings.EqualFold(have, name) {
				removed = have
				delete(servers, have)
				return nil
			}
		}
		return fmt.Errorf("%w: %q", ErrNoMCPServer, name)
	})
	return removed, err
}

// MCPServerNamed returns f's MCP server name, compared without regard to
// case, and its name as f spells it.
func (f *File) MCPServerNamed(name string) (MCPServer, string, bool) {
	if s, ok := f.MCPServers[name]; ok {
		return s, name, true
	}
	for have, s := range f.MCPServers {
		if strings.EqualFold(have, name) {
			return s, have, true
		}
	}
	return MCPServer{}, "", false
}
