// Package compat holds the compatibility suite: test plugins of Hearth's
// own (testdata/<area>/...) that use every symbol of the three SDK
// documents Hearth implements (HomeAgent's Go PluginSDK, the PKU harness,
// xbot) and every pattern their real plugins rely on, each compiled and
// run through Hearth by a table test, one row per symbol or pattern.
package compat
