package main

// The standard plugin set: each import registers its factory from init.
import (
	_ "github.com/hearth-agent/hearth/plugins/memory"
	_ "github.com/hearth-agent/hearth/plugins/time"
)
