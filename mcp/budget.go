package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxToolArguments bounds a tool call's arguments, checked on the raw
// JSON before any tool decodes them: no tool needs more than a note's
// name, a title or a query, and a 5 MB search or 100 KB of "(" took zk
// mcp minutes and gigabytes (issue 23). A query is bounded again, tighter,
// by index.MaxQuery.
const maxToolArguments = 64 << 10

// budgets refuses a request whose arguments are over their cap, as a
// tool's error the agent reads.
func budgets(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch r := req.(type) {
		case *sdk.CallToolRequest:
			if r.Params != nil && len(r.Params.Arguments) > maxToolArguments {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{
					Text: fmt.Sprintf("%s: the arguments are %d bytes, over the %d a tool call may have", r.Params.Name, len(r.Params.Arguments), maxToolArguments)}}}, nil
			}
		case *sdk.ReadResourceRequest:
			if r.Params != nil && len(r.Params.URI) > maxToolArguments {
				return nil, sdk.ResourceNotFoundError(r.Params.URI[:64] + "...")
			}
		}
		return next(ctx, method, req)
	}
}
