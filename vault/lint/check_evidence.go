package lint

import "github.com/zk-claims/zk/vault/evidence"

// runEdited reports every recorded run block (evidence.go) whose lines no
// longer match the checksum in its end marker, or that lost its end
// marker: a record of evidence was changed by hand.
func (nc *noteCheck) runEdited() {
	for _, r := range evidence.EditedRuns(nc.n.Src) {
		nc.atLine(RuleRunEdited, r.Line, "run %s: %s", r.ID, r.Problem)
	}
}
