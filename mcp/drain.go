package mcp

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainWait bounds how long the end of the client's input is held back
// for the answers still owed: a client that closes stdin to stop the
// server (the specification's first shutdown signal) is not kept waiting
// on a falsifier's run, and one that closed it after its last request
// (a one-shot pipe, `zk mcp < calls.jsonl`) gets every answer a check or
// a search gives in that time.
const drainWait = 10 * time.Second

// drainTransport is a transport whose end of input waits until every
// request read is answered (or drainWait passes). The SDK takes the end
// of the client's input for the end of the connection, and then neither
// writes a handler's answer nor lets it finish: piped one request, zk mcp
// answered nothing about one time in two (go-sdk issue 1061, open in
// v1.8.0).
type drainTransport struct{ sdk.Transport }

func (t drainTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, owed: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}, nil
}

// drainConn counts the requests read and not yet answered, by id: an
// answer to nothing read (a parse error's) settles nothing.
type drainConn struct {
	sdk.Connection
	mu       sync.Mutex
	owed     map[jsonrpc.ID]bool
	answered chan struct{} // a token after each answer written
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.mu.Lock()
		c.owed[r.ID] = true
		c.mu.Unlock()
	}
	if errors.Is(err, io.EOF) {
		c.settle(ctx)
	}
	return m, err
}

func (c *drainConn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.Connection.Write(ctx, m)
	if r, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.owed, r.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// settle waits until nothing is owed, drainWait passes or ctx ends (a
// signal: SIGTERM still stops the server within a second).
func (c *drainConn) settle(ctx context.Context) {
	deadline := time.NewTimer(drainWait)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := len(c.owed)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
