package lint

import "testing"

func TestFindingText(t *testing.T) {
	other := func(path string, n Next) string { return "the tool" }
	for _, tt := range []struct {
		name        string
		f           Finding
		cli, worded string
	}{
		{"no step", Finding{Path: "a.md", Message: "no title"}, "no title", "no title"},
		{"run", Finding{Path: "a.md", Message: "no recorded run", Next: Next{Step: StepRun, Falsifier: 2}},
			"no recorded run; zk run a.md --falsifier 2", "no recorded run; the tool"},
		{"rejudge", Finding{Path: "Notes/It's here.md", Message: "judged again", Next: Next{Step: StepRejudge, Falsifier: 1}},
			`judged again; zk run --rejudge 'Notes/It'\''s here.md' --falsifier 1 records that`, "judged again; the tool records that"},
		{"unjudged", Finding{Path: "a b.md", Message: "not judged again here", Next: Next{Step: StepRejudgeUnjudged, Falsifier: 4}},
			"not judged again here; zk run --rejudge 'a b.md' --falsifier 4 judges it", "not judged again here; the tool judges it"},
		{"revise", Finding{Path: "a.md", Message: "moved past the data", Next: Next{Step: StepRevise, Falsifier: 1}},
			"moved past the data; zk run --rejudge a.md --falsifier 1 records that revision, and a run after it answers",
			"moved past the data; the tool records that revision, and a run after it answers"},
	} {
		if got := tt.f.Text(CommandLine); got != tt.cli {
			t.Errorf("%s: Text(CommandLine) = %q, want %q", tt.name, got, tt.cli)
		}
		if got := tt.f.Text(other); got != tt.worded {
			t.Errorf("%s: Text(other) = %q, want %q", tt.name, got, tt.worded)
		}
	}
}
