-- Neovim (0.7+) headless as a real client of zk lsp: open a note, read
-- its diagnostics, go to the definition of a link, complete a link and a
-- tag, read the code lenses, apply a code action, rename a heading.
-- Run by .ci/lsp-test.sh with ZK, VAULT and NOTE set.
local zk, vault, note = os.getenv('ZK'), os.getenv('VAULT'), os.getenv('NOTE')

local function finish(code, msg)
  io.stdout:write(msg .. '\n')
  vim.cmd((code == 0) and 'qall!' or 'cquit! 1')
end

local function check(cond, msg)
  if not cond then finish(1, 'FAIL: ' .. msg) end
  return cond
end

-- No --vault: zk takes the vault from root_dir (sent as rootUri), not from
-- Neovim's working directory, which is the repository's root here.
local client_id = vim.lsp.start_client({ cmd = { zk, 'lsp' }, root_dir = vault, name = 'zk' })
check(client_id, 'zk lsp did not start')
vim.cmd('edit ' .. vim.fn.fnameescape(vault .. '/' .. note))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)

-- Diagnostics: the note was last tended long ago.
local got = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
if not check(got, 'no diagnostics within 30 s') then return end
local codes = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(codes, tostring(code))
end
if not check(vim.tbl_contains(codes, 'maintenance/stale'), 'diagnostics ' .. table.concat(codes, ',') .. ' lack maintenance/stale') then return end
io.stdout:write('ok diagnostics: ' .. table.concat(codes, ',') .. '\n')

-- Definition: on the first [[link]] of the Links section.
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local row
for i, l in ipairs(lines) do
  if l:find('[[A Speedup Reported', 1, true) then row = i - 1 break end
end
if not check(row, 'no link line in the note') then return end
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = row, character = 5 } }
local res = vim.lsp.buf_request_sync(buf, 'textDocument/definition', params, 10000)
local loc = res and res[client_id] and res[client_id].result
if loc and loc[1] then loc = loc[1] end
if not check(loc and loc.uri and vim.uri_to_fname(loc.uri):find('A Speedup Reported Without Its Baseline Cannot Be Checked.md', 1, true),
  'definition: ' .. vim.inspect(res)) then return end
io.stdout:write('ok definition: ' .. vim.uri_to_fname(loc.uri) .. '\n')

-- Completion: type "[[Percent" on a new line; the server sees the change.
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'See [[Percent' })
local last = vim.api.nvim_buf_line_count(buf) - 1
params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = last, character = #'See [[Percent' } }
res = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 10000)
local result = res and res[client_id] and res[client_id].result
local items = result and (result.items or result) or {}
local labels = {}
for _, it in ipairs(items) do table.insert(labels, it.label) end
if not check(vim.tbl_contains(labels, 'Percentiles Cannot Be Averaged Across Hosts'), 'completion: ' .. vim.inspect(labels)) then return end
io.stdout:write('ok completion: ' .. table.concat(labels, ',') .. '\n')
-- Tag completion: "#meas" completes to a tag of another note's frontmatter.
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'Tagged #meas' })
last = vim.api.nvim_buf_line_count(buf) - 1
params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = last, character = #'Tagged #meas' } }
res = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 10000)
result = res and res[client_id] and res[client_id].result
items = result and (result.items or result) or {}
labels = {}
for _, it in ipairs(items) do table.insert(labels, it.label) end
if not check(vim.tbl_contains(labels, 'measurement'), 'tag completion: ' .. vim.inspect(labels)) then return end
io.stdout:write('ok tag completion: ' .. table.concat(labels, ',') .. '\n')

-- Code lens: the note's backlinks counted above its title (Neovim shows
-- lenses as virtual text: vim.lsp.codelens).
params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
res = vim.lsp.buf_request_sync(buf, 'textDocument/codeLens', params, 10000)
local lenses = res and res[client_id] and res[client_id].result or {}
local titles = {}
for _, l in ipairs(lenses) do table.insert(titles, l.command and l.command.title or '?') end
if not check(titles[1] and titles[1]:match('^%d+ backlinks?$'), 'code lenses: ' .. vim.inspect(lenses)) then return end
io.stdout:write('ok code lens: ' .. table.concat(titles, ', ') .. '\n')

-- Code action: on the stale Last tended line, "Set Last tended to today",
-- applied by Neovim to the buffer.
lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
row = nil
for i, l in ipairs(lines) do
  if l:find('Last tended:', 1, true) then row = i - 1 break end
end
if not check(row, 'no Last tended line in the note') then return end
params = { textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = row, character = 0 }, ['end'] = { line = row, character = 0 } },
  context = { diagnostics = {} } }
res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000)
local actions = res and res[client_id] and res[client_id].result or {}
local tend
for _, a in ipairs(actions) do
  if a.title:find('Set Last tended to', 1, true) then tend = a end
end
if not check(tend and tend.edit, 'code actions: ' .. vim.inspect(actions)) then return end
if not check(tend.diagnostics and tend.diagnostics[1] and tend.diagnostics[1].code == 'maintenance/stale',
  'the action fixes no maintenance/stale diagnostic: ' .. vim.inspect(tend.diagnostics)) then return end
vim.lsp.util.apply_workspace_edit(tend.edit, 'utf-16')
local after = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
if not check(after == '- Last tended: 2026-12-02', 'after the action the line reads ' .. vim.inspect(after)) then return end
io.stdout:write('ok code action: ' .. tend.title .. ' -> ' .. after .. '\n')

-- Rename: the note's "## Evidence" heading, through zk mv's plan, applied
-- by Neovim; saved first, as a rename plans from the files on disk.
vim.cmd('silent write')
lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
row = nil
for i, l in ipairs(lines) do
  if l == '## Evidence' then row = i - 1 break end
end
if not check(row, 'no "## Evidence" heading in the note') then return end
params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = row, character = 5 }, newName = 'Evidence seen' }
res = vim.lsp.buf_request_sync(buf, 'textDocument/rename', params, 10000)
local edit = res and res[client_id] and res[client_id].result
if not check(edit, 'rename: ' .. vim.inspect(res)) then return end
vim.lsp.util.apply_workspace_edit(edit, 'utf-16')
after = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
if not check(after == '## Evidence seen', 'after the rename the heading reads ' .. vim.inspect(after)) then return end
io.stdout:write('ok rename: ## Evidence -> ' .. after .. '\n')
finish(0, 'nvim lsp client: all passed')
