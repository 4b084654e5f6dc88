package mcp

// Paging: a tool's list-like result (findings, notes, links, runs, hits,
// properties) is one page of it, 100 items unless asked otherwise, and
// says how many there are and where the next page starts, so that an
// agent's context holds what it asked for however large the vault; the
// resources are paged by the SDK's cursor (resources/list).

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zk-claims/zk/vault"
)

const (
	// defaultPage is a page's size when the call gives no limit.
	defaultPage = 100
	// maxPage bounds a page however large the limit asked.
	maxPage = 1000
	// resourcePage is resources/list's page: 6,500 notes listed at once
	// were 1.7 MB.
	resourcePage = 200
)

// pageInput is the paging every list-like tool takes. Its counts are
// int32 so that the input schema the SDK infers bounds them
// (jsonschema-go gives int32 a minimum and maximum, int none): a limit of
// 1e308 is refused by validation, naming the argument, rather than by the
// decoder, naming a Go struct field.
type pageInput struct {
	Limit  int32 `json:"limit,omitempty" jsonschema:"at most this many items (default 100, at most 1000)"`
	Offset int32 `json:"offset,omitempty" jsonschema:"skip this many items: the next_offset of the page before"`
}

// pageOutput says where a page stands in the whole result.
type pageOutput struct {
	// Items is how many items the whole result holds.
	Items int `json:"items"`
	// NextOffset is the offset of the next page; absent on the last.
	NextOffset int `json:"next_offset,omitempty"`
}

// bounds are the limit and offset a page takes, checked.
func (p pageInput) bounds() (limit, offset int, err error) {
	if p.Limit < 0 || p.Offset < 0 {
		return 0, 0, fmt.Errorf("limit and offset are counts, 0 or more (limit %d, offset %d)", p.Limit, p.Offset)
	}
	limit = int(p.Limit)
	if limit == 0 {
		limit = defaultPage
	}
	return min(limit, maxPage), int(p.Offset), nil
}

// pageOf is the page of items p asks for ([] rather than null when
// empty).
func pageOf[T any](items []T, p pageInput) ([]T, pageOutput, error) {
	limit, offset, err := p.bounds()
	if err != nil {
		return nil, pageOutput{}, err
	}
	out := pageOutput{Items: len(items)}
	from := min(offset, len(items))
	to := min(from+limit, len(items))
	if to < len(items) {
		out.NextOffset = to
	}
	return append([]T{}, items[from:to]...), out, nil
}

// progressOf reports a long call's progress to a client that asked for
// it (a progress token in the call): at most ten notifications a second,
// and the last. nil when the client did not ask.
func progressOf(ctx context.Context, req *sdk.CallToolRequest, message string) func(done, total int) {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	var (
		mu   sync.Mutex
		last time.Time
		sent = -1 // the protocol wants each progress above the last
	)
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done <= sent || done < total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last, sent = time.Now(), done
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, //nolint:errcheck // a client gone ends the call anyway
			Progress: float64(done), Total: float64(total), Message: message})
	}
}

// readingProgress is ctx with the notes a tool reads reported as progress
// to a client that asked (progressOf): a check, a base or a list of a
// large vault reads every note first, which took seconds at 6,500 notes.
// A tool that reads the vault more than once (stale reads its templates,
// then its notes) counts on: each pass adds its notes to the total.
func readingProgress(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	report := progressOf(ctx, req, "reading the vault's notes")
	if report == nil {
		return ctx
	}
	var (
		mu             sync.Mutex
		before, passOf int
	)
	return vault.WithProgress(ctx, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done == 0 {
			before += passOf
		}
		passOf = total
		report(before+done, before+total)
	})
}
