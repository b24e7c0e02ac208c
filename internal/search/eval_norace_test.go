//go:build !race

package search

// raceEnabled is whether the race detector is on (see eval_race_test.go).
const raceEnabled = false
