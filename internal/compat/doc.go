// Package compat is the compatibility suite: test plugins of our own (under
// testdata/) that use every symbol of the HomeAgent, PKU and xbot SDK
// documents and every pattern the real plugins of those ecosystems rely
// on, each compiled and run through Hearth, one table row per symbol. The
// package has no code of its own; its tests are the suite.
package compat
