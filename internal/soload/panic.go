package soload

import "fmt"

// InitPanicError is a .so's panic while Open loaded it: in one of its
// init functions, before any of its code could be called.
type InitPanicError struct {
	Path  string
	Value any    // what the .so panicked with
	Stack []byte // the loading goroutine's stack at the panic
}

func (e *InitPanicError) Error() string {
	return fmt.Sprintf("%s panicked while it was loaded (in an init function): %v", e.Path, e.Value)
}
