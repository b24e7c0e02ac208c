//go:build !linux

package main

// runTestChild has nothing to run where plugins are not contained.
func runTestChild() {}
