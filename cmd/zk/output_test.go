package main

import "testing"

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain note.md", "plain note.md"},
		{"tab\tsplits columns", `tab\tsplits columns`},
		{"two\nlines\r\nhere", `two\nlines\r\nhere`},
		{"esc \x1b[2J cleared", `esc \x1b[2J cleared`},
		{"bell\a del\x7f", `bell\a del\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"Café 日本", "Café 日本"},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

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
