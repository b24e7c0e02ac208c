// Package compat is the compatibility suite: test plugins of our own,
// under testdata/, that use every symbol of the three SDK documents Hearth
// implements (HomeAgent's Go PluginSDK, the PKU harness's TypeScript
// model, xbot's protocol) and every pattern the real plugins rely on. Each
// area's table test (one row per symbol or pattern) compiles its plugins
// and runs them through Hearth: the real plugin host and kernel with a
// scripted model. The package has no code of its own.
package compat
