//go:build !linux

package terminal

// quietInput does nothing here: typed-ahead keys are echoed by the
// terminal while an answer streams, and Enter typed then may reach the
// editor as a newline.
func quietInput(int) func() { return func() {} }
