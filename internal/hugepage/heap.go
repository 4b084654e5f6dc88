package hugepage

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/zk-claims/zk/internal/addrspace"
)

// Heap readies about n bytes of Go's heap for huge pages before a burst
// of allocation, such as a cold parse of a whole vault: it makes them in
// one advised slice (Make) and frees that slice at once with a
// collection, so that the heap's next objects, small ones too, are cut
// from memory the system backs in 2 MiB pages rather than 4 KiB ones. Go
// maps its heap in 4 MiB steps and advises none of it, and the advice
// lasts as long as the mapping: memory the heap frees and reuses keeps
// it, memory the runtime gives back and takes again keeps it too.
//
// A cold zk check of Obsidian's help vault (6,289 notes, 32 MB) faulted
// in 22,500 pages of 4 KiB, a third of its CPU on a virtual machine whose
// faults trap to the host; with 128 MiB readied first, 3,300.
//
// Heap does nothing, and says so, where no advice is given, for less
// than minHeap, when the heap already holds more than n/8 bytes of
// objects (the collection would have to mark them, and a long-lived
// process, the language server, has its memory already), and when it
// has n/2 bytes free, readied before or not (a cold run readies its heap
// as it opens the vault, and the parse after the walk finds it so). n is
// held to half the soft memory limit, so that the freed slice never
// pushes the runtime into returning memory, and to a quarter of the
// address space left under RLIMIT_AS (addrspace.Room), so that it never
// costs a run that would have fit.
func Heap(n int) bool {
	if !advised || ^uintptr(0)>>32 == 0 || n < minHeap { // a 32-bit address space has no room to spare
		return false
	}
	// One at a time: a second caller finds the room the first left free,
	// and never takes the collector's percent while the first has it off.
	heapMu.Lock()
	defer heapMu.Unlock()
	if limit := debug.SetMemoryLimit(-1); int64(n) > limit/2 {
		n = int(limit / 2)
	}
	if room := addrspace.Room() / 4; uint64(n) > room {
		n = int(room)
	}
	if n < minHeap {
		return false
	}
	objects, free, ok := heapBytes()
	if !ok || objects > uint64(n/8) || free >= uint64(n/2) {
		return false
	}
	// With the collector off, the slice starts no collection of its own
	// (it is past any goal): the one collection is the forced one below,
	// which a caller's count of collections the heap's growth started
	// (cmd/zk's first-collection wait) can tell apart.
	percent := debug.SetGCPercent(-1)
	b := Make[byte](n)
	runtime.KeepAlive(b)
	runtime.GC()
	if set := debug.SetGCPercent(percent); set != -1 {
		debug.SetGCPercent(set) // set by another meanwhile (cmd/zk's first-collection finalizer): theirs stands
	}
	return true
}

// heapBytes is the bytes of the heap's objects (live, or dead and not
// yet swept) and of its memory free or given back to the system; ok is
// false where runtime/metrics does not have them.
func heapBytes() (objects, free uint64, ok bool) {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return 0, 0, false
		}
	}
	return s[0].Value.Uint64(), s[1].Value.Uint64() + s[2].Value.Uint64(), true
}

// heapMu makes Heap's callers wait for each other.
var heapMu sync.Mutex

// minHeap is the least Heap readies: below it the collection costs about
// what the faults it saves do.
const minHeap = 16 << 20
