// Package compat is the compatibility suite: test plugins of our own that
// use every symbol of the three SDK documents Hearth implements (HomeAgent's
// Go PluginSDK, the PKU harness plugin model, xbot) and every pattern the
// real plugins rely on, each compiled and run through Hearth, one table row
// per symbol. The package has no code of its own; its tests are the suite.
package compat
