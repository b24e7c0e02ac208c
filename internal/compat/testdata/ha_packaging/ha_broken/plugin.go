package main

import "gitcode.com/JianFeeeee/homeagent-sdk/sdk"

func NewPlugin(name string, config map[string]interface{}) (sdk.Plugin, error) {
	var n int = "not a number"
	return nil, nil
}

var _ sdk.Plugin
