package main

import "testing"

func TestChoiceFlag(t *testing.T) {
	var got string
	f := &choiceFlag{value: &got, noun: "format", allowed: []string{"text", "json"}}
	if err := f.Set("json"); err != nil || got != "json" {
		t.Errorf("Set(json) = %v, value %q", err, got)
	}
	if err := f.Set("xml"); err == nil || err.Error() != `unknown format "xml" (want text or json)` || got != "json" {
		t.Errorf("Set(xml) = %v, value %q: want an error and the value kept", err, got)
	}
	if w := orList([]string{"text", "json", "sarif"}); w != "text, json or sarif" {
		t.Errorf("orList = %q", w)
	}
}
