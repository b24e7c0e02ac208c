// Package hostlink is the one bridge between package sdk and package
// sdk/host. A *sdk.PluginSDK has unexported fields and host-only
// operations (building it, running its stop and remove handlers, setting
// its input path) that sdk does not export, so that a plugin author sees
// only the author's API. Package sdk hands those operations to
// package sdk/host through here: it calls Register once, from init, and
// sdk/host calls Get when it is initialised (after sdk, which it imports).
//
// This package cannot import sdk (sdk imports it), so Funcs is generic
// in the PluginSDK type, and the values a host supplies (the backend a
// PluginSDK calls, the input path) travel as any; sdk asserts them to its
// unexported interfaces of the same method sets.
package hostlink

// Funcs are package sdk's host-side operations on a PluginSDK of type P.
type Funcs[P any] struct {
	// New returns the PluginSDK for plugin name, calling backend (the
	// host bound to the plugin's services).
	New func(name string, backend any) P
	// RunStopHandlers runs and clears the stop handlers.
	RunStopHandlers func(P)
	// RunOnRemoveHandlers runs and clears the remove handlers.
	RunOnRemoveHandlers func(P)
	// SetIOInjector replaces the input path of the Inject methods; nil
	// restores the host's.
	SetIOInjector func(P, any)
	// Backend returns the backend New was given.
	Backend func(P) any
}

// funcs is what Register recorded; only Register writes it, from package
// sdk's init, before any reader can run.
var funcs any

// Register records package sdk's operations. It panics if called twice.
func Register[P any](f Funcs[P]) {
	if funcs != nil {
		panic("hostlink: Register called twice")
	}
	funcs = f
}

// Get returns what Register recorded. It panics if Register has not run
// or recorded another P.
func Get[P any]() Funcs[P] {
	f, ok := funcs.(Funcs[P])
	if !ok {
		panic("hostlink: package sdk did not register its host operations")
	}
	return f
}
