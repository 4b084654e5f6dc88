package base

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// now is the clock every example runs at: 2026-12-02 10:30 UTC.
var testNow = time.Date(2026, 12, 2, 10, 30, 0, 0, time.UTC)

func loadTestVault(t testing.TB) *Snapshot {
	t.Helper()
	v, err := vault.Open("testdata/vault")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	s, err := Load(context.Background(), v, time.UTC, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// show is a value written so that a test can spell it: strings quoted,
// lists in brackets, dates in ISO form.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return `"` + x + `"`
	case Tag:
		return `"` + string(x) + `"`
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case nil:
		return "null"
	case Date:
		if x.HasTime {
			return "date(" + x.T.Format("2006-01-02 15:04:05") + ")"
		}
		return "date(" + x.T.Format("2006-01-02") + ")"
	case *File:
		return "file(" + x.Path + ")"
	case Link:
		return "link(" + x.Text + "->" + x.Target + ")"
	}
	return toString(v)
}
