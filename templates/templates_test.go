package templates

import (
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	now := time.Date(2026, 12, 2, 14, 3, 9, 0, time.UTC)
	tests := []struct{ in, want string }{
		{"# {{title}}", "# A Claim"},
		{"{{date}} {{time}}", "2026-12-02 14:03"},
		{"{{ date }}", "2026-12-02"},
		{"{{date:YYYY-MM-DD}}", "2026-12-02"},
		{"{{date:dddd, MMMM D, YY}}", "Wednesday, December 2, 26"},
		{"{{time:HH:mm:ss}}", "14:03:09"},
		{"{{time:h:mm A}}", "2:03 PM"},
		{"{{date:[week of] MMM D}}", "week of Dec 2"},
		{"{{date:YYYYMMDDHHmm}}", "202612021403"},
		{"{{other}} and {{title", "{{other}} and {{title"},
	}
	for _, tt := range tests {
		if got := string(Render([]byte(tt.in), "A Claim", now)); got != tt.want {
			t.Errorf("Render(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDefault(t *testing.T) {
	b, ok := Default("permanent")
	if !ok || len(b) == 0 {
		t.Fatal("no embedded permanent template")
	}
	if _, ok := Default("nonesuch"); ok {
		t.Error("Default found a template zk does not ship")
	}
}
