package hugepage

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/zk-claims/zk/internal/addrspace"
)

// TestHeapReadiesSmallObjects: after Heap, the small objects the heap
// makes next lie in memory advised for huge pages (VmFlags "hg" in
// /proc/self/smaps), not in the 4 KiB pages Go's heap maps unadvised,
// but for the few MiB that fill the room the heap had before and the
// slice's start below its first 2 MiB boundary.
func TestHeapReadiesSmallObjects(t *testing.T) {
	runtime.GC() // what earlier tests left is garbage, not objects Heap refuses to mark
	// With the collector off, only Heap's own collection frees its slice
	// for the objects below to reuse.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	_, free, _ := heapBytes()
	n := max(64<<20, 4*int(free)) // more than earlier tests (or runs, -count) left free
	if !Heap(n) {
		t.Fatalf("Heap(%d MiB) readied nothing on a heap of a few MiB", n>>20)
	}
	if Heap(n) {
		t.Errorf("Heap(%d MiB) readied the heap again with the room it readied free", n>>20)
	}
	const size, most = 48, 6 << 20
	held := make([]*[size]byte, 500_000) // 24 MB of small objects
	for i := range held {
		held[i] = new([size]byte)
	}
	advised := advisedRanges(t)
	in := 0
	for _, p := range held {
		a := uintptr(unsafe.Pointer(p))
		for _, r := range advised {
			if a >= r[0] && a < r[1] {
				in++
				break
			}
		}
	}
	runtime.KeepAlive(held)
	if out := (len(held) - in) * size; out > most {
		t.Errorf("%d of %d small objects (%d KiB) outside memory advised for huge pages; want at most %d KiB", len(held)-in, len(held), out>>10, most>>10)
	}
}

// TestHeapRefusesAFullHeap: Heap readies nothing while the heap holds
// more than an eighth of what it was asked for, nor below minHeap.
func TestHeapRefusesAFullHeap(t *testing.T) {
	held := make([]byte, 16<<20)
	held[0] = 1
	if Heap(64 << 20) {
		t.Error("Heap(64 MiB) readied the heap with 16 MiB of objects in it")
	}
	runtime.KeepAlive(held)
	if Heap(minHeap - 1) {
		t.Error("Heap readied less than minHeap")
	}
}

// advisedRanges is the address ranges of this process whose VmFlags
// hold "hg" (madvise(MADV_HUGEPAGE)).
func advisedRanges(t *testing.T) [][2]uintptr {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps to read the advice from: %v", err)
	}
	defer f.Close()
	var (
		out [][2]uintptr
		cur [2]uintptr
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(lo, ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				cur = [2]uintptr{uintptr(a), uintptr(b)}
				continue
			}
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && strings.Contains(" "+flags+" ", " hg ") {
			out = append(out, cur)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHeapKeepsToTheAddressLimit: under an RLIMIT_AS with little room
// left, Heap makes nothing rather than ending the process with Go's
// fatal "out of memory".
func TestHeapKeepsToTheAddressLimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	runtime.GC()
	// A limit 32 MiB past what the process maps now, or the one it has
	// if that is lower.
	used, err := addrspace.Mapped()
	if err != nil {
		t.Skip(err)
	}
	if lim := (syscall.Rlimit{Cur: used + 32<<20, Max: old.Max}); lim.Cur < old.Cur {
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Skip(err)
		}
		defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	}
	if Heap(256 << 20) {
		t.Errorf("Heap readied the heap with %d MiB of address space left", addrspace.Room()>>20)
	}
}

// TestHeapAtOnce: callers at once (the language server's readers) leave
// the collector's percent as they found it, never off.
func TestHeapAtOnce(t *testing.T) {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { Heap(64 << 20) })
	}
	wg.Wait()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC %d after four Heaps at once, want 100", p)
	}
}
