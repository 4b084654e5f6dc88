package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/tending"
)

// TestStaleText: the table has a header whether or not stdout is a
// terminal (a pipe needs the columns named too), and a note --within
// lists before its date is due "in 30d", never -30 days overdue.
func TestStaleText(t *testing.T) {
	r := tending.StaleReport{Notes: []tending.Due{{
		Path:        "Permanent Notes/A.md",
		Tended:      tending.Tended{Date: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		DaysOverdue: 245,
		Backlinks:   3,
	}, {
		Path:        "B.md",
		Tended:      tending.Tended{Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		DaysOverdue: 0,
	}, {
		Path:        "C.md",
		Tended:      tending.Tended{Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		DaysOverdue: -30,
		Backlinks:   12,
	}}}
	want := "DUE           LAST TENDED  BACKLINKS  NOTE\n" +
		"245d overdue  2026-01-01           3  Permanent Notes/A.md\n" +
		"today         2026-11-01           0  B.md\n" +
		"in 30d        2026-12-01          12  C.md\n"
	for _, tty := range []bool{false, true} {
		var out, errs bytes.Buffer
		if err := writeStaleText(&streams{out: &out, err: &errs, outTTY: tty}, r, "", 0); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("tty %v:\n%s\nwant\n%s", tty, out.String(), want)
		}
	}
}
