package lazyre

import "testing"

// TestNew: nothing is compiled until the first call, which compiles once;
// a bad pattern panics at that call, not before.
func TestNew(t *testing.T) {
	re := New(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Errorf("%v matches wrongly", first)
	}
	if re() != first {
		t.Error("a second call compiled again")
	}
	bad := New(`(`) // must not panic here
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic at its first use")
		}
	}()
	bad()
}
