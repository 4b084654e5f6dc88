package vault

import (
	"slices"
	"testing"
)

func TestSchemaProperties(t *testing.T) {
	tests := []struct {
		name, tmpl string
		want       []string
	}{
		{"none", "# {{title}}\n## Claim\n", nil},
		{"yaml", "---\nstatus: draft\nsource:\ntags: [a]\n---\n# {{title}}\n## Claim\n", []string{"status", "source", "tags"}},
		// {{date}} is no YAML value: the keys are read line by line.
		{"template variables", "---\ncreated: {{date}}\n\"due date\": {{date:YYYY}}\ncast:\n  - a\n# comment: no\n---\n# {{title}}\n## Claim\n",
			[]string{"created", "due date", "cast"}},
	}
	for _, tt := range tests {
		s, err := ParseSchema([]byte(tt.tmpl))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(s.Properties, tt.want) {
			t.Errorf("%s: properties %q, want %q", tt.name, s.Properties, tt.want)
		}
	}
}
