package vault

import (
	"context"
	"os"
	"sync"

	"github.com/zk-claims/zk/internal/hugepage"
)

// progressKey is the context key of WithProgress's report.
type progressKey struct{}

// WithProgress is ctx with report, which every Each under it tells how
// many of its notes are read (done of total, done increasing, from one
// goroutine at a time; each Each starts again at 0). Long work reads the
// vault through Each deep inside a use case (check, base, list…): a
// front end that shows progress (zk mcp's notifications) asks for it
// here rather than through every use case's signature.
func WithProgress(ctx context.Context, report func(done, total int)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// Paths is every path of a walk, for a resolver: SplitFiles without the
// notes, for a caller that has no use for them (a copy of every note's
// File, 640 KB at 10,000 notes, is memory to fault in for nothing).
func Paths(files []File) []string {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return paths
}

// SplitFiles is every path of a walk, for the resolver, and its notes.
func SplitFiles(files []File) (paths []string, notes []File) {
	paths = make([]string, len(files))
	notes = make([]File, 0, len(files)) // mostly notes: one allocation, not a growth by copies
	for i, f := range files {
		paths[i] = f.Path
		if f.IsNote() {
			notes = append(notes, f)
		}
	}
	return paths, notes
}

// CountProgress starts a pass over total notes of WithProgress's report
// (told 0 of total now) and returns what to call as each note is done,
// from any goroutine; a no-op when ctx has no report.
func CountProgress(ctx context.Context, total int) func() {
	report, _ := ctx.Value(progressKey{}).(func(done, total int))
	if report == nil {
		return func() {}
	}
	report(0, total)
	var (
		mu   sync.Mutex
		done int
	)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		report(done, total)
	}
}

// Each reads and parses notes on the workers of Parallel and calls f with
// each one parsed, from several goroutines at once. It returns, by index,
// why a note that could not be read was skipped ("" for one read). It
// stops starting notes once ctx is done, and gives up on goldmark in the
// notes it is in (read by the line scanner instead: parseWithin). This is
// the one way zk streams a vault: check, stale, graph and the index keep
// of each note only what they need, so memory grows with the answer, not
// with the vault's text.
func (v *Vault) Each(ctx context.Context, notes []File, f func(i int, n *Note)) []string {
	reasons := make([]string, len(notes))
	readyHeap(notes)
	dirs := &dirRoots{v: v, m: map[string]*os.Root{}}
	defer dirs.close()
	parsers := sync.Pool{New: func() any { return NewParser() }}
	read := CountProgress(ctx, len(notes))
	Parallel(len(notes), func(i int) {
		if ctx.Err() != nil {
			return
		}
		p := parsers.Get().(*Parser)
		n, why := v.load(ctx.Done(), p, notes[i], dirs)
		parsers.Put(p)
		switch {
		case ctx.Err() != nil: // stopped: what f would make of n goes nowhere
			return
		case n == nil:
			reasons[i] = why
		default:
			f(i, n)
		}
		read()
	})
	return reasons
}

// readyHeap readies the heap for huge pages (hugepage.Heap) before
// notes are parsed: a parse's objects grow the heap by about three and a
// half times the notes' bytes (a cold check of Obsidian's help vault:
// 110 MB for 32 MB of notes), and under GOGC=1600 before the first
// collection more, so eight times their bytes, up to 1 GiB. A few notes
// (under 2 MB) ask for less than Heap readies; a zk index of obsidian-hub
// over a cached model (every note parsed, no cold run to ready the heap
// before it) took 3.74-4.16 s of CPU, 3.53-3.63 with it.
func readyHeap(notes []File) {
	var total int64
	for _, f := range notes {
		total += max(f.Size, 0)
	}
	hugepage.Heap(int(min(8*total, 1<<30)))
}

// Parallel runs f(0)...f(n-1) on Workers goroutines.
func Parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(Workers(), max(1, n)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// ResolverOf is a resolver over every file of a walk.
func ResolverOf(files []File) *Resolver {
	return NewResolver(Paths(files))
}
