package property

import "testing"

func TestTypeOf(t *testing.T) {
	tests := []struct {
		v    any
		want Type
	}{
		{nil, Empty},
		{true, Checkbox},
		{int64(3), Number},
		{2.5, Number},
		{[]any{"a"}, List},
		{map[string]any{}, Object},
		{"hello", Text},
		{"2020-08-21", Date},
		{"2020-02-30", Text}, // not a real date
		{"2020-08-21T10:30:00", DateTime},
		{"2020-08-21T10:30", DateTime},
		{"2020-08-21T10:30:00Z", DateTime},
		{"2020-08-21 10:30", Text},
	}
	for _, tt := range tests {
		if got := TypeOf(tt.v); got != tt.want {
			t.Errorf("TypeOf(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

func TestFits(t *testing.T) {
	tests := []struct {
		declared Type
		v        any
		want     bool
	}{
		{Number, int64(3), true},
		{Number, "3", false},
		{Number, nil, true},
		{Text, int64(3), true},
		{Text, []any{"a"}, false},
		{List, []any{"a"}, true},
		{List, "a", false},
		{Tags, "a", true},
		{Checkbox, "yes", false},
		{Checkbox, false, true},
		{Date, "2024-01-01", true},
		{Date, "2024-01-01T10:00", false},
		{Date, "next week", false},
		{DateTime, "2024-01-01", true},
		{DateTime, "2024-01-01T10:00", true},
	}
	for _, tt := range tests {
		if got := Fits(tt.declared, tt.v); got != tt.want {
			t.Errorf("Fits(%s, %#v) = %v, want %v", tt.declared, tt.v, got, tt.want)
		}
	}
}

func TestDeclared(t *testing.T) {
	got, err := Declared([]byte(`{"types":{"rating":"number","cast":"multitext","tags":"tags","due":"datetime"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Type{"rating": Number, "cast": List, "tags": Tags, "due": DateTime}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if _, err := Declared([]byte(`{"types":{"x":"colour"}}`)); err == nil {
		t.Error("an unknown type was accepted")
	}
	if _, err := Declared([]byte(`{`)); err == nil {
		t.Error("bad JSON was accepted")
	}
}

// TestForm: a tags or aliases value is written as a list, which is what
// TypeOf says of it; every other type is its own form.
func TestForm(t *testing.T) {
	for _, tt := range []struct{ typ, want Type }{
		{Tags, List}, {Aliases, List}, {List, List}, {Text, Text}, {Date, Date}, {Empty, Empty},
	} {
		if got := tt.typ.Form(); got != tt.want {
			t.Errorf("%s.Form() = %s, want %s", tt.typ, got, tt.want)
		}
	}
}
