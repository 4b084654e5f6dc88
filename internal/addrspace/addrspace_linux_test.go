package addrspace

import (
	"syscall"
	"testing"
)

// TestRoom: under a limit, Room is the limit less what the process maps;
// without one, Unlimited.
func TestRoom(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	if old.Cur == Unlimited && Room() != Unlimited {
		t.Errorf("Room() = %d without a limit, want Unlimited", Room())
	}
	used, err := Mapped()
	if err != nil || used == 0 {
		t.Fatalf("Mapped() = %d, %v", used, err)
	}
	lim := syscall.Rlimit{Cur: used + 1<<30, Max: old.Max}
	if lim.Cur > old.Cur {
		t.Skipf("the test runs under a tighter limit already (%d MiB)", old.Cur>>20)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	// What the process maps may move a little between the two reads.
	if room := Room(); room > 1<<30 || room < 1<<30-64<<20 {
		t.Errorf("Room() = %d MiB under a limit 1024 MiB past what the process maps", room>>20)
	}
}
