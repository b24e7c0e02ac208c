//go:build race

package search

// raceEnabled is whether the race detector is on: it makes SQLite (a C
// library translated to Go) and the evaluation a hundred times slower,
// so TestEval then checks only its own small collection.
const raceEnabled = true
