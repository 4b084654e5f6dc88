package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/tending"
)

// TestStaleTextHeader: the table has a header on a terminal only; rows are
// the same either way.
func TestStaleTextHeader(t *testing.T) {
	r := tending.StaleReport{Notes: []tending.Due{{
		Path:        "Permanent Notes/A.md",
		Tended:      tending.Tended{Date: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		DaysOverdue: 245,
		Backlinks:   3,
	}}}
	for _, tty := range []bool{false, true} {
		var out, errs bytes.Buffer
		if err := writeStaleText(&streams{out: &out, err: &errs, outTTY: tty}, r, ""); err != nil {
			t.Fatal(err)
		}
		want := "245  2026-01-01  3  Permanent Notes/A.md\n"
		if tty {
			want = "OVERDUE  LAST TENDED  BACKLINKS  NOTE\n" +
				"    245   2026-01-01          3  Permanent Notes/A.md\n"
		}
		if out.String() != want {
			t.Errorf("tty %v:\n%s\nwant\n%s", tty, out.String(), want)
		}
	}
}
