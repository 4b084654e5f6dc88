package vault

import (
	"errors"
	"strings"
	"testing"
)

func TestAppendToSection(t *testing.T) {
	for _, tc := range []struct {
		name, src, section, text, want string
	}{
		{"before the next heading", "# N\n\n## Evidence\n\n- one\n\n## Links\n", "evidence", "- two",
			"# N\n\n## Evidence\n\n- one\n\n- two\n\n## Links\n"},
		{"the last section", "# N\n\n## Evidence\n\n- one\n", "Evidence", "- two\n",
			"# N\n\n## Evidence\n\n- one\n\n- two\n"},
		{"the last section, no final newline", "# N\n\n## Evidence\n\n- one", "Evidence", "- two",
			"# N\n\n## Evidence\n\n- one\n\n- two\n"},
		{"an empty section", "# N\n\n## Evidence\n\n## Links\n", "Evidence", "text",
			"# N\n\n## Evidence\n\ntext\n\n## Links\n"},
		{"an empty section at the end, unterminated", "# N\n\n## Evidence", "Evidence", "text",
			"# N\n\n## Evidence\n\ntext\n"},
		{"subsections stay the section's", "# N\n## A\nx\n### A1\ny\n## B\n", "A", "z",
			"# N\n## A\nx\n### A1\ny\n\nz\n\n## B\n"},
		{"CRLF kept", "# N\r\n\r\n## E\r\n\r\n- one\r\n\r\n## L\r\n", "E", "- two\nthree",
			"# N\r\n\r\n## E\r\n\r\n- one\r\n\r\n- two\r\nthree\r\n\r\n## L\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := NewParser().Parse("n.md", []byte(tc.src))
			got, err := AppendToSection(n, tc.section, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	n := NewParser().Parse("n.md", []byte("# N\n## A\n"))
	if _, err := AppendToSection(n, "Nope", "x"); !errors.Is(err, ErrNoSection) {
		t.Errorf("a missing section: %v", err)
	}
	if _, err := AppendToSection(n, "A", "  \n"); err == nil {
		t.Error("nothing to append: no error")
	}
}

func TestSetProperty(t *testing.T) {
	for _, tc := range []struct {
		name, src, key string
		value          any
		want           string
	}{
		{"replace a scalar", "---\nstatus: draft\nrating: 3\n---\n# N\n", "status", "done",
			"---\nstatus: done\nrating: 3\n---\n# N\n"},
		{"replace a block list", "---\ntags:\n  - a\n  - b\ntitle: T\n---\n", "tags", []any{"c"},
			"---\ntags:\n  - c\ntitle: T\n---\n"},
		{"replace the last, a list at the margin", "---\ntitle: T\ntags:\n- a\n---\nbody\n", "tags", "x",
			"---\ntitle: T\ntags: x\n---\nbody\n"},
		{"add one", "---\ntitle: T\n---\n", "rating", int64(4),
			"---\ntitle: T\nrating: 4\n---\n"},
		{"add the frontmatter", "# N\n", "status", "draft",
			"---\nstatus: draft\n---\n# N\n"},
		{"a string YAML would misread is quoted", "---\na: 1\n---\n", "when", "2026-01-02: yes",
			"---\na: 1\nwhen: '2026-01-02: yes'\n---\n"},
		{"a boolean", "---\na: 1\n---\n", "done", true,
			"---\na: 1\ndone: true\n---\n"},
		{"cleared", "---\na: 1\n---\n", "a", nil,
			"---\na:\n---\n"},
		{"CRLF kept", "---\r\na: 1\r\n---\r\n", "b", []any{"x", "z"},
			"---\r\na: 1\r\nb:\r\n  - x\r\n  - z\r\n---\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := NewParser().Parse("n.md", []byte(tc.src))
			got, err := SetProperty(n, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, src, key string
		value          any
		want           string
	}{
		{"a key with a colon", "# N\n", "a: b", "x", "not a property name"},
		{"a key twice", "---\na: 1\nb: 2\na: 3\n---\n", "a", "x", ""},
		{"broken YAML", "---\na: [1\n---\n", "a", "x", "does not parse"},
		{"a map value", "# N\n", "a", map[string]any{"b": 1}, "not map"},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			n := NewParser().Parse("n.md", []byte(tc.src))
			if _, err := SetProperty(n, tc.key, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}
